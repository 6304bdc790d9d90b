// The numbers of sealed attachments (docs/decisions/0121-sealed-attachments.md), in one place for
// the manifest, the chunk codec, the stores and, later, the send tool's texts.

const MIB = 1024 * 1024;

/** The attachment protocol's version, said in a hello (`"attach":1`) by a papo that receives files. */
export const ATTACH_VERSION = 1;
/** Bytes of a file in one `attach-chunk`: its sealed frame stays under 64 KiB (ADR 0121, "Chunks"). */
export const CHUNK_BYTES = 64_512;
/** Files one message carries. */
export const MAX_FILES = 16;
/** Default cap of one file, and of one message's files together (`PAPO_ATTACH_MAX_*_MIB`). */
export const DEFAULT_MAX_FILE_BYTES = 16 * MIB;
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * MIB;
/** Bytes of a sending member's files a receiver holds before its person releases them. */
export const MAX_UNRELEASED_PER_MEMBER_BYTES = 256 * MIB;
/** Ranges a receiver's record of one file holds (attach/ranges.ts). */
export const MAX_RANGES = 256;
/** Largest offset a chunk names: 6 bytes on the wire. */
export const MAX_OFFSET = 2 ** 48 - 1;
/** A file name's bounds: UTF-8 bytes (what ext4 and APFS take) and characters (what a person reads). */
export const MAX_NAME_BYTES = 255;
export const MAX_NAME_CHARS = 128;
/** A media type's length. */
export const MAX_MEDIA_TYPE_CHARS = 100;

/** The caps in force: a file, and a message's files together. */
export interface AttachCaps {
  maxFileBytes: number;
  maxMessageBytes: number;
}

/**
 * The caps from the environment (`PAPO_ATTACH_MAX_FILE_MIB`, `PAPO_ATTACH_MAX_MESSAGE_MIB`, whole
 * MiB from 1 to 4096), the defaults otherwise. A value that is not such a number is a RangeError
 * naming the variable, so a typo is not silently the default.
 */
export function attachCaps(env: NodeJS.ProcessEnv = process.env): AttachCaps {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^[0-9]{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 4096)
      throw new RangeError(`${name} must be a whole number of MiB from 1 to 4096`);
    return Number(raw) * MIB;
  };
  const maxFileBytes = read('PAPO_ATTACH_MAX_FILE_MIB', DEFAULT_MAX_FILE_BYTES);
  const maxMessageBytes = read('PAPO_ATTACH_MAX_MESSAGE_MIB', DEFAULT_MAX_MESSAGE_BYTES);
  return { maxFileBytes, maxMessageBytes: Math.max(maxMessageBytes, maxFileBytes) };
}
