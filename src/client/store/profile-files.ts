// The files and folders of a profile ($PAPO_HOME/profiles/<profile>/, docs/files.md): the
// one list of their names. The modules that read and write each one import its name from here, and
// so does everything that must know the whole profile (papo forget, papo status, the fuzz targets).

/** The room: its secret, signal URL, member name and settings (0600). */
export const PROFILE_FILE = 'profile.json';
/** This member's Ed25519 key (0600). */
export const SECRET_KEY_FILE = 'secret.key';
/** The person's own key, for what `papo say` signs (0600; ADR 0064). */
export const PERSON_KEY_FILE = 'person.key';
/** Members known from earlier sessions (ADR 0062). */
export const PEERS_FILE = 'peers.json';
/** Who holds each name: the first key the room saw with it (ADR 0064). */
export const NAMES_FILE = 'names.json';
/** Messages owed to other members, written before they are sent. */
export const OUTBOX_FILE = 'outbox.json';
/** Unread messages, one file each. */
export const INBOX_DIR = 'inbox';
/** papo 0.1's single-file inbox, read once and moved into INBOX_DIR. */
export const LEGACY_INBOX_FILE = 'inbox.json';
/** Messages the person's review holds (ADR 0081). */
export const HELD_DIR = 'held';
/** The review gate's settings (ADR 0081). */
export const REVIEW_FILE = 'review.json';
/** The log, one JSON line per event (docs/protocol.md, "log.jsonl"). */
export const LOG_FILE = 'log.jsonl';
/** The agent's transport restarts, for `papo status` (written by papo mcp; ADR 0057). */
export const TRANSPORT_FILE = 'transport.json';
/** One server per profile (ADR 0011). */
export const LOCK_FILE = 'lock';
/** The page `papo web` has the browser open, holding its address with the secret (0600; ADR 0120). */
export const WEB_OPENER_FILE = 'web-open.html';
/** Where the running papo mcp takes the says `papo say` hands it (a Unix socket, 0600; ADR 0102). */
export const SAY_SOCKET = 'member.sock';
/** The sender's attachments, by SHA-256, until every recipient has them (0700; ADR 0121). */
export const ATTACH_OUT_DIR = 'attachments-out';
/** Attachments arriving, per message, until the person approves or rejects them (0700; ADR 0121). */
export const ATTACH_IN_DIR = 'attachments-in';
/** Attachments the person released to the agent, `<msg id>/<name>` (0700, files 0600; ADR 0121). */
export const ATTACHMENTS_DIR = 'attachments';
