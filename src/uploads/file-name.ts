import { displayName } from '../security/display-text.js';

/** Longest file name kept in the answer, in characters (user-perceived). */
export const MAX_FILE_NAME_LENGTH = 255;

/**
 * An uploaded file's name as the answer keeps it (what the tool and an `uploadSink` receive): its last path segment
 * (`/` or `\`), made safe to show by `displayName` (no control, bidirectional or zero-width characters, NFC, one line,
 * at most `MAX_FILE_NAME_LENGTH` characters); `file` when nothing is left. Still untrusted text: a name to show,
 * never a path to use.
 */
export function fileName(name: string): string {
  const last = name.split(/[/\\]/).pop() ?? '';
  return displayName(last, MAX_FILE_NAME_LENGTH) || 'file';
}
