/**
 * Least time between two reads of the live rings that a key id nobody announced asks for (`AnnouncedKeyIds.lookUp`):
 * 5 seconds. A browser makes such key ids up at will; this bounds what that costs the store.
 */
export const KEY_ID_LOOKUP_INTERVAL_MS = 5_000;

/**
 * The key ids the other live instances on a shared store announced (`ElicitationStore.announceKeyRing`), as this
 * instance's `ElicitationKeyRingAnnouncer` last read them: what tells a value made by another instance under a key
 * this one lacks (the operator's to fix: a readable 503 and a warning) from one made up by a client (a forged
 * value: refused as such, nothing logged). Key ids only (fingerprints, never keys). Empty on a store that is not
 * shared, where no other instance can have made anything.
 */
export class AnnouncedKeyIds {
  private ids = new Set<string>();
  /** Reads the live rings again (the announcer's `refresh`, which calls `update`), once one is attached. */
  private reader: (() => Promise<void>) | undefined;
  private reading: Promise<void> | undefined;
  private nextRead = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The rings of the other live instances, as just read from the store: they replace what was known. */
  update(rings: ReadonlyArray<{ readonly keyIds: readonly string[] }>): void {
    this.ids = new Set(rings.flatMap((ring) => ring.keyIds));
  }

  /** Where `lookUp` reads the live rings again: the announcer, on a store that records them. */
  readWith(reader: () => Promise<void>): void {
    this.reader = reader;
  }

  /** Whether a live instance announced `keyId` when the rings were last read. */
  has(keyId: string): boolean {
    return this.ids.has(keyId);
  }

  /**
   * Whether a live instance announced `keyId`, reading the live rings again first when it is not known (an
   * instance started since the last read), at most once per `KEY_ID_LOOKUP_INTERVAL_MS` and once at a time: a
   * lookup meanwhile waits for the read in flight, or answers from what is known.
   */
  async lookUp(keyId: string): Promise<boolean> {
    if (this.ids.has(keyId) || !this.reader) return this.ids.has(keyId);
    if (!this.reading && this.now() >= this.nextRead) {
      this.nextRead = this.now() + KEY_ID_LOOKUP_INTERVAL_MS;
      this.reading = this.reader()
        .catch(() => undefined)
        .finally(() => (this.reading = undefined));
    }
    await this.reading;
    return this.ids.has(keyId);
  }
}
