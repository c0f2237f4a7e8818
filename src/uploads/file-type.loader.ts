/** `file-type` (an ES module): finds a file's type from its magic bytes. Loaded at first use. */
export type FileTypeModule = typeof import('file-type');

let loading: Promise<FileTypeModule> | undefined;

/** The `file-type` module, imported once (a failed import is tried again on the next call). */
export function loadFileType(): Promise<FileTypeModule> {
  loading ??= import('file-type').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
