// The CLI's human text in English and Brazilian Portuguese (docs/cli.md, "CLI reference"; ADR 0012).
// Agent-facing text (MCP) never goes through here: it is always English.
import {
  type AnyPapoError,
  isPapoError,
  type PapoErrorDetails,
  type SignalFragmentProblem,
  type SignalTokenProblem,
} from '../client/errors.js';
import { bareHost } from '../client/hosts.js';
import type { NoPathReason } from '../client/net/health.js';
import type { CertificateProblem } from '../client/net/signal-probe.js';
import { signalOrigin, tokenMayTravel } from '../client/net/signal-token.js';
import type { OpenPort } from './signal-public/public-signal.js';

export type Lang = 'en' | 'pt';

/**
 * pt-BR when the first set variable of PAPO_LANG, LC_ALL, LC_MESSAGES, LANG starts with "pt":
 * the usual POSIX precedence, with PAPO_LANG above it to choose papo's language alone.
 */
export function detectLang(env: NodeJS.ProcessEnv): Lang {
  for (const key of ['PAPO_LANG', 'LC_ALL', 'LC_MESSAGES', 'LANG']) {
    const value = env[key];
    if (value) return value.toLowerCase().startsWith('pt') ? 'pt' : 'en';
  }
  return 'en';
}

/** What the error text may mention, known to the command that failed. */
export interface ErrorHints {
  profile?: string;
  name?: string;
  home?: string;
}

/** What `papo join`'s probe of the room's signal server found (the token accepted, or only a welcome). */
export type JoinCheck =
  | 'accepted'
  | 'welcome'
  | 'unauthorized'
  | 'pin_mismatch'
  | 'unreachable'
  | 'not_papo'
  /** PAPO_SIGNAL_TOKEN cannot be used for this server: `detail` is its error, already translated. */
  | 'token_invalid';

export interface Messages {
  errorPrefix: string;
  roomCreated(roomId: string, name: string, profile: string): string;
  /** papo new without --name, and no user name to take one from. */
  newNameNeeded: string;
  newSignalNeedsPin(url: string): string;
  newSignalNeedsToken(url: string): string;
  joined(roomId: string, name: string, profile: string): string;
  replaced(profile: string): string;
  sendInvite: string;
  inviteFor(roomId: string, profile: string): string;
  theyRun: string;
  /** The hidden prompt of `papo join` on a terminal (stderr). */
  invitePrompt: string;
  signalServer(url: string): string;
  /** Lines printed by `new` when the room uses the signal server on this machine. */
  localOnlyNew(url: string, name: string, suffix: string): string[];
  localOnlyJoin(url: string): string[];
  nextSteps(suffix: string): string[];
  installed(scope: string): string;
  openClaude: string;
  /** papo install --plugin (ADR 0101): the plugin installed, and from where. */
  pluginInstalled(id: string, root: string): string;
  /** The project's profile, written into Claude Code's settings of the project. */
  pluginProfile(profile: string, file: string): string;
  pluginNoPapoOnPath: string;
  openClaudePlugin: string;
  pluginFailed(command: string, status: string): string;
  pluginNoMarketplace(root: string): string;
  pluginSettingsNotJson(file: string): string;
  /** After claude mcp add: the plugin way, offered. */
  pluginOffer: string;
  pluginOtherClient(label: string): string;
  /** papo install --plugin where claude mcp add registered papo too. */
  pluginAlsoAdded(scope: string): string;
  pluginScope: string;
  claudeFailed(status: string, scope: string): string;
  installProfileMissing(profile: string): string;
  installHomeNote(home: string): string;
  codexInstalled(path: string): string;
  codexTimeout(seconds: number): string;
  codexApproval(tools: readonly string[]): string;
  codexPassEnv(names: readonly string[]): string;
  openCodex: string;
  codexFailed(status: string, said: string): string;
  codexNoEntry(path: string): string;
  codexThenAdd(path: string): string;
  geminiInstalled(scope: string, file: string): string;
  /** Why papo's entry in Gemini CLI has trust, timeout and env references (one line each). */
  geminiEntryNotes(passEnv: readonly string[]): string[];
  geminiFolderTrust: string;
  geminiHomeNote(home: string): string;
  openGemini: string;
  geminiFailed(status: string): string;
  geminiNotJson(file: string, why: string): string;
  clientMissing(exe: string): string;
  badScope(label: string, scope: string, scopes: readonly string[]): string;
  /** papo install into a client's configuration file (opencode, Qwen Code; ADR 0070). */
  installedIn(label: string, scope: string, file: string): string;
  installHomeNoteFor(label: string, home: string): string;
  installTimeout(seconds: number): string;
  installOpen(label: string, command: string): string;
  printAddTo(file: string): string;
  opencodeAllowed(names: string): string;
  opencodeNotJson(file: string): string;
  opencodeUnreadable(file: string, why: string): string;
  /**
   * papo install refused a client's configuration file, or a folder above it in the project, that
   * is a link or not a plain file (ADR 0094); `print` is the papo install --print command.
   */
  installLinked(path: string, how: 'symbolic' | 'hard' | 'not_regular', print: string): string;
  /** Variables not written because their value may hold a secret: the client passes them on (ADR 0094). */
  installWithheld(label: string, names: readonly string[]): string;
  qwenTrusted: string;
  /** What the person gets in Qwen Code: the push through its session inbox (ADR 0118). */
  qwenPush: string;
  qwenFailed(status: string, scope: string): string;
  /** Qwen Code starts a project's server only once approved (0.24): papo install approved papo's. */
  qwenApproved: string;
  qwenApproveFailed(status: string): string;
  /** After --print's settings.json part, scope project: the approval to run too. */
  qwenApproveByHand: string;
  badCount(value: string): string;
  logEmpty: string;
  logEmptyFollowing: string;
  webHelp: string;
  webPortHelp: string;
  webNoOpenHelp: string;
  webBadPort(port: string): string;
  webOpenAt(url: string): string;
  connecting: string;
  deliveredTo(names: string, id: string): string;
  nobodyOnline: string;
  memberNotOnline(name: string): string;
  notAcknowledged(id: string, seconds: number): string;
  inboxFull(name: string, id: string): string;
  impostorNote(name: string, kind: string, node: string): string;
  knowNoOne(suffix: string): string;
  statusHeader(profile: string, name: string, roomId: string): string;
  /** How room messages reach the agent, from its papo mcp (ADR 0118): a door by its name. */
  pushDoor(name: string): string;
  /** The door's names: 'claude-session', 'qwen-session', 'codex-queue'. */
  pushDoorNames: Record<string, string>;
  pushChannels: string;
  /** No push: the agent reads when it calls wait; `why` is pushNoDoor or a door's state. */
  pushPull(why: string): string;
  pushNoDoor: string;
  pushFailed(detail: string): string;
  agentIdentity(short: string): string;
  lookingFor(seconds: number): string;
  online: string;
  offline: string;
  /** Offline to this run but on the signal server's topic: no link yet, not gone (issue 40). */
  onSignalServer: string;
  /** A link that carried a message and brought nothing back for `seconds`. */
  notAnswering(seconds: number, path: string): string;
  yourAgent: string;
  noMembersOnTopic: string;
  /** Why the signal server could not be used (SignalProblemCode), for status and say. */
  signalProblem(code: string, url: string, detail: string): string;
  /** `papo join`'s one line on the room's signal server, probed at once (ADR 0089). */
  joinCheck(outcome: JoinCheck, url: string, detail: string): string;
  /** `papo join`'s line when TLS refused the server's certificate: what is wrong, and the fix. */
  joinCertificate(url: string, problem: CertificateProblem): string;
  /** What is wrong with a certificate TLS refused (`papo join`, `papo doctor`). */
  certificateProblem(url: string, problem: CertificateProblem): string;
  /** How to fix it, for whoever can: the operator or this machine. */
  certificateFix(problem: CertificateProblem): string;
  /** This process's own transport could not run (ADR 0057). */
  transportTrouble(why: string, restarts: number): string;
  localOnlyRoom(url: string): string;
  /**
   * Members on the signal server with no link past the bound (docs/transport.md, "Network
   * health"): who (names, and how many not met yet), and why no path works, with the fix.
   */
  noPath(
    names: string[],
    others: number,
    url: string,
    seconds: number,
    reason: NoPathReason,
    source: string,
  ): string;
  papoRelayNote: string;
  agentTransportRestarts(restarts: number, when: string, why: string): string;
  counts(queued: number, unread: number): string;
  badTimeout(value: string): string;
  /** A say refused before anything is sent (papo say, papo web: actions/say-input.ts). */
  sayEmpty: string;
  sayTooLarge(kib: number): string;
  notAMessageId: string;
  /** papo forget (ADR 0063). */
  forgotten(name: string, released: number): string;
  forgottenByAgent(name: string): string;
  forgetLeft(name: string): string;
  forgetUnknown(name: string, suffix: string): string;
  forgetSelf(name: string): string;
  forgetHelp: string;
  forgetNameHelp: string;
  /** papo status: who the queue waits for (ADR 0063). */
  /** `offerForget` is false when everyone named is on the signal server (they have not left). */
  queuedFor(waiting: { name: string; count: number }[], suffix: string, offerForget: boolean): string;
  firstToConfirm: string;
  /** papo say: members known but offline, who get it from those who stored it (ADR 0063). */
  sayLater(names: string): string;
  /** papo signal bound to loopback without --public: who can reach it, and the way out. */
  signalLoopbackOnly(url: string): string;
  /** papo signal --public without coturn on PATH (ADR 0088): the warning, then its fix. */
  signalNoTurn: string[];
  /** papo signal --public: the ports to open to this host (issue 40), before the creator's command. */
  signalPorts(ports: readonly OpenPort[]): string;
  /** `3478/udp and 3478/tcp (TURN), 49160-50120/udp (TURN relays)`: as signalPorts lists them. */
  portList(ports: readonly OpenPort[]): string;
  /** papo signal --public behind 1:1 NAT: ADDR is on no interface, relays on `privateIp` (ADR 0112). */
  signalMapped(address: string, privateIp: string): string;
  /** papo signal --public: the line before the creator's command (stderr; the command is on stdout). */
  signalCreatorCommand: string;
  /**
   * Text of a domain error in this language, built from its code and `detail`; undefined = use the
   * error's own (English) message.
   */
  error(err: AnyPapoError, hints: ErrorHints): string | undefined;
}

/** Claude Code before 2.1.332 pushes only through channels; later ones need no flag (ADR 0118). */
const CHANNELS = 'claude --dangerously-load-development-channels server:papo';
/** The same, when Claude Code runs papo from its plugin (ADR 0101). */
const PLUGIN_CHANNELS = 'claude --dangerously-load-development-channels plugin:papo@papo';

const en: Messages = {
  errorPrefix: 'error: ',
  roomCreated: (id, name, profile) => `Room ${id} created. You are "${name}" (profile ${profile}).`,
  newNameNeeded: 'give your name in the room: papo new --name <name> (1-32 of A-Za-z0-9-_.)',
  newSignalNeedsPin: (url) =>
    `the signal server ${url} has a certificate of its own, and this address does not carry its pin (nor, likely, its token): every member would be refused. Run the papo new --signal '…' line that papo signal --public printed on the server (papo signal --public ADDR prints it again); nothing was created`,
  newSignalNeedsToken: (url) =>
    `the signal server ${url} wants a token, and this address carries none: every member would be refused. Run the papo new --signal '…' line that papo signal --public printed on the server (papo signal --public ADDR prints it again), or set PAPO_SIGNAL_TOKEN; nothing was created`,
  joined: (id, name, profile) => `You joined room ${id} as "${name}" (profile ${profile}).`,
  replaced: (profile) =>
    `Profile ${profile} was replaced: your identity and log are kept; known members, inbox and outbox of the old room are cleared.`,
  sendInvite: 'Send this invite to your colleague over a private channel (whoever has it can join the room):',
  inviteFor: (id, profile) =>
    `Invite to room ${id} (profile ${profile}). Send it over a private channel (whoever has it can join the room):`,
  theyRun: 'They run:  papo join --name <their-name>   and paste the invite at the prompt (it is not shown)',
  invitePrompt: 'Paste the invite and press Enter (it is not shown): ',
  signalServer: (url) => `Signal server: ${url}`,
  localOnlyNew: (url, name, suffix) => [
    `This room uses the local signal server (${url}): it works on this machine only, so only`,
    'profiles on this machine can join it. For colleagues on other machines, run a shared signal',
    'server (papo signal, or the Docker bundle; see docs/signal-server.md) and make the room with:',
    `  papo new --force --name ${name} --signal wss://your-signal-server${suffix}`,
  ],
  localOnlyJoin: (url) => [
    `This room meets on ${url}, on this machine only: a colleague on another machine needs an invite`,
    'made with --signal (a signal server both can reach; see docs/signal-server.md).',
  ],
  nextSteps: (suffix) => [
    'Next steps:',
    `  1. Inside the project folder:  papo install${suffix}`,
    `  2. Open Claude Code there:     claude   (2.1.332 or later: messages arrive on their own; older: ${CHANNELS})`,
    `     (another agent: papo install --client codex|gemini|opencode|qwen${suffix}, then open it there)`,
    '  3. Ask for something like: "agree the API format with my colleague\'s agent over papo"',
    '',
    `To watch the agents' conversation live:  papo log -f${suffix}`,
  ],
  installed: (scope) => `papo is registered in Claude Code (scope ${scope}).`,
  openClaude: `Open Claude Code with:  claude   (2.1.332 or later: your colleague's messages arrive on their own, no flag; older: ${CHANNELS})`,
  pluginInstalled: (id, root) =>
    `The papo plugin (${id}) is installed in Claude Code for your user, from the marketplace in ${root}: Claude Code starts papo mcp itself in every project.`,
  pluginProfile: (profile, file) =>
    `This project talks in the room of profile ${profile}: PAPO_PROFILE is set in ${file} (your Claude Code settings for this project, not to be committed; Claude Code passes them to papo). For another project, run papo install --plugin --profile <its profile> there.`,
  pluginNoPapoOnPath:
    'note: the plugin runs papo from PATH, and there is no papo on PATH: install papo (npm install -g, see the README) before you open Claude Code.',
  openClaudePlugin: `Open Claude Code with:  claude   (2.1.332 or later: your colleague's messages arrive on their own, no flag; older: ${PLUGIN_CHANNELS})`,
  pluginFailed: (command, status) =>
    `${command} failed (${status}). Check that claude runs (claude --version), or do it by hand: papo install --plugin --print`,
  pluginNoMarketplace: (root) =>
    `this papo has no Claude Code marketplace (${root}/.claude-plugin/marketplace.json is missing): reinstall papo, or run papo install without --plugin`,
  pluginSettingsNotJson: (file) =>
    `${file} is not plain JSON, and papo install does not rewrite it. Nothing was changed: add the env that papo install --plugin --print shows by hand`,
  pluginOffer: 'Or let Claude Code start papo from its plugin instead:  papo install --plugin',
  pluginOtherClient: (label) => `--plugin is for Claude Code only; ${label} is registered without it`,
  pluginScope:
    '--plugin installs the plugin for your user (every project), and this project gets its profile: leave out --scope',
  pluginAlsoAdded: (scope) =>
    `note: papo is also registered with claude mcp add (scope ${scope}), so Claude Code would start papo twice for this project: remove that one with  claude mcp remove papo --scope ${scope}`,
  clientMissing: (exe) => `${exe} is not on PATH. Run this by hand:`,
  badScope: (label, scope, scopes) =>
    `${label} has no scope "${scope}": use ${scopes.map((s) => `--scope ${s}`).join(', ')}`,
  claudeFailed: (status, scope) =>
    `claude mcp add failed (${status}). If papo is already registered in this scope, remove it with "claude mcp remove papo --scope ${scope}" and run papo install again`,
  installedIn: (label, scope, file) => `papo is registered in ${label} (scope ${scope}), in ${file}.`,
  installHomeNoteFor: (label, home) =>
    `note: PAPO_HOME is set (${home}) but not written in a project's file; ${label} must start papo with the same PAPO_HOME`,
  installTimeout: (seconds) =>
    `A call of papo's tools may last ${seconds} s (timeout), so that a long wait (up to 1200 s) is not cut short.`,
  installOpen: (label, command) => `Open ${label} in this folder:  ${command}`,
  printAddTo: (file) => `Add to ${file}:`,
  opencodeAllowed: (names) =>
    `papo's tools are allowed to run without asking (permission: ${names}), so that opencode run can use them even where your configuration asks before every tool; no other tool or server is affected.`,
  opencodeNotJson: (file) =>
    `${file} is not plain JSON (comments?), and papo install does not rewrite it: add papo's entry by hand (papo install --client opencode --print shows it)`,
  opencodeUnreadable: (file, why) => `cannot read ${file} (${why})`,
  installLinked: (path, how, print) =>
    `${path} ${{ symbolic: 'is a symbolic link', hard: 'has another hard link (it is also another file)', not_regular: 'is not a regular file' }[how]}; papo install does not read or write an agent's configuration through a link, nor anything but a plain file (a link planted in a project could lead to any file of yours). Nothing was changed. Remove it (or put a real file there) and run papo install again, or add papo's entry by hand: ${print}`,
  installWithheld: (label, names) =>
    `note: ${names.join(', ')} may hold a secret (a token in its query or fragment), so it is not written into ${label}'s configuration; ${label} passes it on to papo from the environment it runs in: start ${label} with ${names.join(', ')} set.`,
  qwenPush:
    "In its terminal UI (0.24 or later) your colleague's messages arrive in the conversation on their own, as from a process the session started (papo); qwen -p reads them only when the agent calls wait.",
  qwenTrusted:
    "papo's entry is trusted (trust: true): Qwen Code runs papo's tools without asking, which qwen -p needs; no other server is affected.",
  qwenFailed: (status, scope) =>
    `qwen mcp add failed (${status}). Check that qwen runs, or remove papo with "qwen mcp remove --scope ${scope} papo" and run papo install again`,
  qwenApproved:
    "papo's entry is approved for this folder (qwen mcp approve papo): Qwen Code starts a server of the project's settings only once approved, and qwen -p cannot ask; if the entry changes, Qwen Code asks again.",
  qwenApproveFailed: (status) =>
    `qwen mcp approve papo failed (${status}); papo's entry is written, but Qwen Code will not start it until approved: run "qwen mcp approve papo" in this folder`,
  qwenApproveByHand:
    "Then, in this folder: qwen mcp approve papo (Qwen Code starts a server of the project's settings only once approved; qwen -p cannot ask).",
  installProfileMissing: (profile) =>
    `note: profile '${profile}' is not configured yet — run papo new or papo join before opening your agent`,
  installHomeNote: (home) =>
    `note: PAPO_HOME is set (${home}); your agent must start papo with the same PAPO_HOME`,
  codexInstalled: (path) => `papo is registered in Codex CLI (${path}, [mcp_servers.papo]).`,
  codexTimeout: (seconds) =>
    `  tool_timeout_sec = ${seconds}: Codex ends a tool call after 300 s otherwise, and wait can take up to 1200 s.`,
  codexApproval: (tools) =>
    `  ${tools.join(', ')} run without asking (approval_mode "approve", for these papo tools only): codex exec refuses tools that need approval. Other MCP servers are unchanged.`,
  codexPassEnv: (names) =>
    `  ${names.join(', ')} passed on from the environment Codex runs in (env_vars); the value is not written.`,
  openCodex:
    "Open Codex in the project folder:  codex   (its terminal UI: your colleague's messages arrive as turns of their own, marked as papo's; codex exec reads them only when the agent calls wait)",
  codexFailed: (status, said) =>
    `codex mcp add failed (${status})${said ? `: ${said}` : ''}. Check that codex runs (codex --version) and that CODEX_HOME, if set, is an existing folder, then run papo install --client codex again`,
  codexNoEntry: (path) =>
    `codex mcp add ran, but papo could not add its settings to [mcp_servers.papo] in ${path}; nothing else was changed. Add them by hand (papo install --client codex --print shows the entry)`,
  codexThenAdd: (path) => `Then add these lines under [mcp_servers.papo] in ${path}:`,
  geminiInstalled: (scope, file) => `papo is registered in Gemini CLI (scope ${scope}, ${file}).`,
  geminiEntryNotes: (passEnv) => [
    '  "trust": true — Gemini CLI runs papo\'s five tools (send, wait, inbox, history, status) without asking each time; it applies to papo\'s entry only, no other server or tool (headless runs, gemini -p, refuse tools that need a confirmation).',
    '  "timeout": 1210000 — milliseconds Gemini CLI lets one papo call run (its default is 10 minutes): a wait of up to 20 minutes is never cut.',
    ...passEnv.map(
      (name) =>
        `  "${name}": "$${name}" — a reference, not the value: Gemini CLI hides variables whose names hold TOKEN, KEY or SECRET from the servers it starts, and passes this one to papo from its own environment. Start gemini with ${name} set.`,
    ),
  ],
  geminiFolderTrust:
    'Gemini CLI starts MCP servers only in folders you trust: the first time you open gemini in this folder, answer its "Do you trust the files in this folder?" with "Trust folder" (or later: /permissions trust). papo install does not trust any folder for you. Headless runs: gemini --skip-trust -p "..." trusts the folder for that run only.',
  geminiHomeNote: (home) =>
    `note: PAPO_HOME is set (${home}) but not written in the project's settings (they may be shared); Gemini CLI must start papo with the same PAPO_HOME`,
  openGemini: 'Open Gemini CLI in this folder with:  gemini',
  geminiFailed: (status) =>
    `gemini mcp add failed (${status}); add papo by hand: papo install --client gemini --print`,
  geminiNotJson: (file, why) =>
    `${file} is not plain JSON (${why}), so papo install leaves it as it is: add the entry of papo install --client gemini --print by hand`,
  badCount: (value) => `-n must be a whole number of 1 or more (got ${JSON.stringify(value)})`,
  logEmpty: "(nothing in this room's log yet: it fills once your agent's papo mcp sends or receives)",
  logEmptyFollowing: "(nothing in this room's log yet; waiting for messages — Ctrl-C to stop)",
  webHelp: 'the room in your browser: the conversation, your say and your review queue (127.0.0.1 only)',
  webPortHelp: 'the port to listen on (default: any free port)',
  webNoOpenHelp: 'print the address without opening a browser',
  webBadPort: (port) => `--port wants a port number from 0 to 65535, not ${JSON.stringify(port)}`,
  webOpenAt: (url) => `papo web is at ${url} (only this machine; Ctrl-C to stop)`,
  connecting: 'connecting…',
  deliveredTo: (names, id) => `delivered to ${names} (msg ${id})`,
  nobodyOnline: 'nobody in the room is online right now; the message was not sent',
  memberNotOnline: (name) => `${name} is not online right now; the message was not sent`,
  notAcknowledged: (id, seconds) =>
    `sent (msg ${id}), but nobody confirmed it within ${seconds}s; papo say keeps no queue, so it may not have arrived`,
  impostorNote: (name, kind, node) =>
    `warning: a member with another key [${node}] claimed to be ${name} (${kind}) in the last day; your agent's papo refused what it sent (papo log shows when)`,
  inboxFull: (name, id) =>
    `not delivered (msg ${id}): ${name}'s inbox is full, because their agent has not read the messages it holds; papo say keeps no queue, so say it again later`,
  knowNoOne: (suffix) =>
    `I don't know anyone in this room yet: members appear once their papo is running (their agent open in their project, after papo install). Ask your colleague to open it, then try again (papo status${suffix}).`,
  statusHeader: (profile, name, roomId) => `Profile ${profile}: you are "${name}" in room ${roomId}.`,
  pushDoor: (name) => `Push into your agent: ${name}: room messages reach it without it calling wait.`,
  pushDoorNames: {
    'claude-session': "Claude Code's session messages (no channels flag)",
    'qwen-session': "Qwen Code's session messages",
    'codex-queue': "Codex's queued turns (codex queue)",
  },
  pushChannels: "Push into your agent: channels (Claude Code runs with papo's channel).",
  pushPull: (why) =>
    `Push into your agent: none; it reads room messages when it calls wait or inbox (${why}).`,
  pushNoDoor:
    'its client gave papo no door: Claude Code 2.1.332 or later, Qwen Code 0.24 or later and Codex CLI 0.171 or later have one, in their interactive sessions',
  pushFailed: (detail) => `failed: ${detail}`,
  agentIdentity: (short) => `Agent identity: ${short}`,
  lookingFor: (seconds) => `Looking for room members (up to ${seconds}s)…`,
  online: 'online',
  offline: 'offline',
  onSignalServer: 'on the signal server, no link yet',
  notAnswering: (seconds, path) => `not answering for ${seconds}s, ${path} until then`,
  yourAgent: 'your agent',
  noMembersOnTopic: '  (nobody found)',
  signalProblem: (code, url, detail) => {
    switch (code) {
      case 'unauthorized':
        return tokenMayTravel(url)
          ? `warning: the signal server ${url} refused the connection: it requires a token (set PAPO_SIGNAL_TOKEN=${originOf(url)}=<token>)`
          : `warning: the signal server ${url} refused the connection: it requires a token, and papo never sends one over ws:// to another machine (give it TLS, papo signal --tls-cert/--tls-key or a proxy in front, and use wss://)`;
      case 'room_full':
        return `warning: the signal server ${url} says this room is full (${detail})`;
      case 'rate_limited':
      case 'topic_limit':
        return `warning: the signal server ${url} turned papo away for now (${detail}); try again in a moment`;
      case 'pin_mismatch':
        return `warning: the signal server ${url} presents a certificate whose key is not the one this room's invite pins: its key changed, or another machine answers at that address; papo sends it nothing. Ask the server's operator; if the key changed, ask for a new invite`;
      case 'not_papo':
        return `warning: ${url} does not answer as a papo signal server (${detail}); check the room's signal URL (the invite, or PAPO_SIGNAL)`;
      default:
        return `warning: could not reach the signal server at ${url} (${detail}); is it running, and reachable from this network?`;
    }
  },
  joinCheck: (outcome, url, detail) => {
    switch (outcome) {
      case 'accepted':
        return `The signal server ${url} answers and accepts this room's token.`;
      case 'welcome':
        return `The signal server ${url} answers.`;
      case 'unauthorized':
        return `warning: the signal server ${url} answers but refuses this room's token (${detail}): ask for a new invite, or set PAPO_SIGNAL_TOKEN=${originOf(url)}=<token>`;
      case 'pin_mismatch':
        return `warning: the signal server ${url} presents a certificate whose key is not the one this invite pins: its key changed, or another machine answers at that address; papo sends it nothing. Ask for a new invite`;
      case 'token_invalid':
        return `warning: ${detail}`;
      case 'unreachable':
        return `note: the signal server ${url} does not answer now (${detail}); the room is kept, and papo meets the others there once it answers (papo doctor checks it)`;
      default:
        return `warning: ${url} does not answer as a papo signal server should (${detail}); check the invite's signal address (papo doctor says more)`;
    }
  },
  joinCertificate(url, problem) {
    return `warning: ${this.certificateProblem(url, problem)}; papo sends it nothing. ${this.certificateFix(problem)}`;
  },
  certificateProblem: (url, problem) =>
    ({
      self_signed: `the signal server ${url} presents a self-signed certificate, and the room's address pins no key for it`,
      unknown_ca: `the signal server ${url} presents a certificate signed by an authority this machine does not trust`,
      expired: `the signal server ${url} presents a certificate that has expired`,
      not_yet_valid: `the signal server ${url} presents a certificate that is not valid yet`,
      name_mismatch: `the signal server ${url} presents a certificate made for another name than ${hostOf(url)}`,
    })[problem],
  certificateFix: (problem) =>
    ({
      self_signed:
        "Ask the server's operator for the papo new line papo signal --public prints (its address pins the key), make the room with it, and join with the new invite; or trust the certificate with NODE_EXTRA_CA_CERTS=/path/to/cert.pem",
      unknown_ca:
        'Set NODE_EXTRA_CA_CERTS=/path/to/ca.pem where papo runs (papo install passes it on to the agent), or use an address with a pin (papo signal --public prints one)',
      expired:
        "The server's operator must renew it (papo signal --public renews its own certificate by itself; a CA's with the CA's client, e.g. certbot)",
      not_yet_valid: "Check this machine's date and time; if they are right, the server's",
      name_mismatch:
        "Use the name the certificate was made for in the room's address, or have the operator make one for this name (papo signal --public ADDR makes it for ADDR)",
    })[problem],
  transportTrouble: (why, restarts) =>
    `warning: papo's network process ${why} (started again ${restarts} time${restarts === 1 ? '' : 's'})`,
  localOnlyRoom: (url) =>
    `this room meets on ${url}, on this machine only: a colleague on another machine needs an invite made with --signal`,
  noPath: (names, others, url, seconds, reason, source) => {
    const who = [...names];
    if (others > 0) who.push(others === 1 ? 'a member not met yet' : `${others} members not met yet`);
    const many = who.length > 1 || others > 1;
    const head = `warning: ${who.join(' and ')} ${many ? 'are' : 'is'} on the signal server ${url} (not gone from the room), but no network path between your machines works: no link formed within ${seconds}s`;
    switch (reason) {
      case 'relay_without_turn':
        return `${head}. PAPO_ICE_POLICY=relay allows relayed paths only and no TURN relay is configured: unset PAPO_ICE_POLICY, or give papo a TURN relay (PAPO_ICE_SERVERS, or a signal server that hands one out)`;
      case 'turn_limited':
        return `${head}. The signal server has a TURN relay but hands this machine none for now (this address had its share): a signal token for that server (PAPO_SIGNAL_TOKEN) lifts the limit`;
      case 'turn_failed':
        return `${head}. A TURN relay is configured, yet no path formed through it (unreachable from one machine, or refusing its credentials): run papo doctor on both machines`;
      default:
        return source === 'env'
          ? `${head}. PAPO_ICE_SERVERS names no TURN relay, and a direct path does not work between these networks (a symmetric NAT, or UDP blocked): add a TURN relay to PAPO_ICE_SERVERS`
          : `${head}. The signal server hands out no TURN relay, and a direct path does not work between these networks (a symmetric NAT, or UDP blocked): install coturn on the signal server (papo signal starts it when turnserver is on PATH) or set PAPO_TURN_URLS and PAPO_TURN_SECRET there; or point each member at a TURN relay with PAPO_ICE_SERVERS`;
    }
  },
  papoRelayNote:
    'note: PAPO_RELAY is set, but this papo does not use it: set TURN servers with PAPO_ICE_SERVERS (README, "Behind a corporate network")',
  agentTransportRestarts: (restarts, when, why) =>
    `Your agent's papo mcp started its network process again ${restarts === 1 ? 'once' : `${restarts} times`}; the last time at ${when}, because it ${why}.`,
  counts: (queued, unread) => `Queued for sending: ${queued}. Unread by the agent: ${unread}.`,
  badTimeout: (value) => `--timeout must be a number of seconds from 1 to 600 (got ${JSON.stringify(value)})`,
  sayEmpty: 'the message is empty',
  sayTooLarge: (kib) => `the message is larger than ${kib} KiB`,
  notAMessageId: 'not a message id',
  forgotten: (name, released) =>
    `${name} is forgotten: ${released === 1 ? '1 queued message no longer waits' : `${released} queued messages no longer wait`} for them, and new messages are not owed to them. If ${name} comes back, they are a member again.`,
  forgottenByAgent: (name) =>
    `${name} is forgotten: your agent's papo mcp no longer waits for them, and new messages are not owed to them. If ${name} comes back, they are a member again.`,
  forgetLeft: (name) =>
    `papo mcp holds this profile but did not take the request within 5s; it forgets ${name} as soon as it looks (at the latest when it starts again)`,
  forgetUnknown: (name, suffix) =>
    `no member named "${name}" is known in this room, and nothing waits for them (papo status${suffix} lists the members)`,
  forgetSelf: (name) => `"${name}" is you: papo forget is for other members who left the room`,
  forgetHelp:
    'stop waiting for a member who left the room for good: queued messages no longer wait for them, new ones are not owed to them',
  forgetNameHelp: "the member's name in the room (any letter case)",
  queuedFor: (waiting, suffix, offerForget) =>
    `Waiting for: ${waiting.map(({ name, count }) => `${name} (${count})`).join(', ')}.${offerForget ? ` Someone who left for good: papo forget NAME${suffix}.` : ''}`,
  firstToConfirm: 'the first member to confirm',
  sayLater: (names) =>
    `${names} offline: papo say keeps no queue, but the members who stored it pass it on when they connect (within 24 h)`,
  signalLoopbackOnly: (url) =>
    `note: ${url} listens on loopback: only this machine can reach it. For colleagues on other machines: papo signal --public <the name or address they reach>`,
  signalNoTurn: [
    'WARNING: no TURN server: coturn (turnserver) is not on PATH. Members behind a symmetric NAT or a firewall that blocks UDP will not link.',
    'WARNING: fix: install coturn (apt install coturn, brew install coturn) and start papo signal again, or point at a TURN server with PAPO_TURN_URLS and PAPO_TURN_SECRET.',
  ],
  signalPorts: (ports) =>
    `Open these ports to this machine (its firewall, the cloud's security group): ${portList(ports, 'and', EN_PORT_USES)}. Members whose network cannot reach them fail to link; papo doctor on their side says when this server's TURN ports seem closed.`,
  portList: (ports) => portList(ports, 'and', EN_PORT_USES),
  signalMapped: (address, privateIp) =>
    `${address} is on no interface of this machine (1:1 NAT, as on a cloud VM): coturn relays on ${privateIp}, the address it stands for, and hands out ${address} (external-ip).`,
  signalCreatorCommand:
    "The room's creator runs this (it holds the server's token: send it over a private channel):",
  error: () => undefined,
};

const EN_PORT_USES: Record<OpenPort['use'], string> = {
  signal: 'signal server',
  stun: 'STUN',
  turn: 'TURN',
  turns: 'TURN over TLS',
  relays: 'TURN relays',
};

const PT_PORT_USES: Record<OpenPort['use'], string> = {
  signal: 'servidor de sinalização',
  stun: 'STUN',
  turn: 'TURN',
  turns: 'TURN sobre TLS',
  relays: 'relays TURN',
};

/** `7450/tcp (signal server), 3478/udp and 3478/tcp (TURN), …`: one port's protocols together. */
function portList(ports: readonly OpenPort[], and: string, uses: Record<OpenPort['use'], string>): string {
  const groups: { use: OpenPort['use']; items: string[] }[] = [];
  for (const p of ports) {
    const last = groups.at(-1);
    const item = `${p.port}/${p.protocol}`;
    if (last?.use === p.use) last.items.push(item);
    else groups.push({ use: p.use, items: [item] });
  }
  return groups.map((g) => `${g.items.join(` ${and} `)} (${uses[g.use]})`).join(', ');
}

const pt: Messages = {
  errorPrefix: 'erro: ',
  roomCreated: (id, name, profile) => `Sala ${id} criada. Você é "${name}" (perfil ${profile}).`,
  newNameNeeded: 'diga seu nome na sala: papo new --name <nome> (1 a 32 de A-Za-z0-9-_.)',
  newSignalNeedsPin: (url) =>
    `o servidor de sinalização ${url} tem um certificado próprio, e este endereço não traz o pin dele (nem, provavelmente, o token): todo membro seria recusado. Rode a linha papo new --signal '…' que o papo signal --public mostrou no servidor (papo signal --public ENDEREÇO mostra de novo); nada foi criado`,
  newSignalNeedsToken: (url) =>
    `o servidor de sinalização ${url} pede um token, e este endereço não traz nenhum: todo membro seria recusado. Rode a linha papo new --signal '…' que o papo signal --public mostrou no servidor (papo signal --public ENDEREÇO mostra de novo), ou defina PAPO_SIGNAL_TOKEN; nada foi criado`,
  joined: (id, name, profile) => `Você entrou na sala ${id} como "${name}" (perfil ${profile}).`,
  replaced: (profile) =>
    `O perfil ${profile} foi substituído: a sua identidade e o log foram mantidos; membros conhecidos, inbox e fila da sala antiga foram apagados.`,
  sendInvite: 'Mande este convite ao seu colega por um canal privado (quem tem o código entra na sala):',
  inviteFor: (id, profile) =>
    `Convite para a sala ${id} (perfil ${profile}). Mande por um canal privado (quem tem o código entra na sala):`,
  theyRun:
    'Ele roda:  papo join --name <nome-dele>   e cola o convite quando pedido (ele não aparece na tela)',
  invitePrompt: 'Cole o convite e tecle Enter (ele não aparece na tela): ',
  signalServer: (url) => `Servidor de sinalização: ${url}`,
  localOnlyNew: (url, name, suffix) => [
    `Esta sala usa o servidor de sinalização local (${url}): funciona só nesta máquina, então só`,
    'perfis desta máquina conseguem entrar. Para colegas em outras máquinas, rode um servidor de',
    'sinalização compartilhado (papo signal, ou o pacote Docker; veja docs/signal-server.md) e crie a sala com:',
    `  papo new --force --name ${name} --signal wss://seu-servidor-de-sinalizacao${suffix}`,
  ],
  localOnlyJoin: (url) => [
    `Esta sala se encontra em ${url}, só nesta máquina: um colega em outra máquina precisa de um convite`,
    'feito com --signal (um servidor de sinalização que os dois alcancem; veja docs/signal-server.md).',
  ],
  nextSteps: (suffix) => [
    'Próximos passos:',
    `  1. Dentro da pasta do projeto:  papo install${suffix}`,
    `  2. Abra o Claude Code ali:      claude   (2.1.332 ou mais novo: as mensagens chegam sozinhas; mais antigo: ${CHANNELS})`,
    `     (outro agente: papo install --client codex|gemini|opencode|qwen${suffix}, e abra-o ali)`,
    '  3. Peça algo como: "combina com o agente do colega o formato da API pelo papo"',
    '',
    `Para ver a conversa dos agentes ao vivo:  papo log -f${suffix}`,
  ],
  installed: (scope) => `O papo está registrado no Claude Code (escopo ${scope}).`,
  openClaude: `Abra o Claude Code com:  claude   (2.1.332 ou mais novo: as mensagens do colega chegam sozinhas, sem flag; mais antigo: ${CHANNELS})`,
  pluginInstalled: (id, root) =>
    `O plugin do papo (${id}) está instalado no Claude Code para o seu usuário, do marketplace em ${root}: o próprio Claude Code inicia o papo mcp em cada projeto.`,
  pluginProfile: (profile, file) =>
    `Este projeto conversa na sala do perfil ${profile}: PAPO_PROFILE está em ${file} (suas configurações do Claude Code para este projeto, que não vão para o git; o Claude Code as passa ao papo). Para outro projeto, rode lá papo install --plugin --profile <o perfil dele>.`,
  pluginNoPapoOnPath:
    'atenção: o plugin roda o papo do PATH, e não há papo no PATH: instale o papo (npm install -g, veja o README) antes de abrir o Claude Code.',
  openClaudePlugin: `Abra o Claude Code com:  claude   (2.1.332 ou mais novo: as mensagens do colega chegam sozinhas, sem flag; mais antigo: ${PLUGIN_CHANNELS})`,
  pluginFailed: (command, status) =>
    `${command} falhou (${status}). Confira se o claude roda (claude --version), ou faça à mão: papo install --plugin --print`,
  pluginNoMarketplace: (root) =>
    `este papo não tem marketplace do Claude Code (falta ${root}/.claude-plugin/marketplace.json): reinstale o papo, ou rode papo install sem --plugin`,
  pluginSettingsNotJson: (file) =>
    `${file} não é JSON puro, e o papo install não o reescreve. Nada foi alterado: acrescente à mão o env que papo install --plugin --print mostra`,
  pluginOffer: 'Ou deixe o Claude Code iniciar o papo pelo plugin dele:  papo install --plugin',
  pluginOtherClient: (label) => `--plugin é só para o Claude Code; o ${label} é registrado sem ele`,
  pluginScope:
    '--plugin instala o plugin para o seu usuário (todos os projetos), e este projeto recebe o perfil dele: tire o --scope',
  pluginAlsoAdded: (scope) =>
    `atenção: o papo também está registrado pelo claude mcp add (escopo ${scope}), e o Claude Code iniciaria o papo duas vezes neste projeto: remova aquele registro com  claude mcp remove papo --scope ${scope}`,
  clientMissing: (exe) => `O comando ${exe} não está no PATH. Rode à mão:`,
  badScope: (label, scope, scopes) =>
    `${label} não tem o escopo "${scope}": use ${scopes.map((s) => `--scope ${s}`).join(', ')}`,
  claudeFailed: (status, scope) =>
    `claude mcp add falhou (${status}). Se o papo já estiver registrado nesse escopo, remova com "claude mcp remove papo --scope ${scope}" e rode papo install de novo`,
  installedIn: (label, scope, file) => `O papo está registrado no ${label} (escopo ${scope}), em ${file}.`,
  installHomeNoteFor: (label, home) =>
    `aviso: PAPO_HOME está definido (${home}) mas não vai no arquivo do projeto; o ${label} precisa iniciar o papo com o mesmo PAPO_HOME`,
  installTimeout: (seconds) =>
    `Uma chamada das ferramentas do papo pode durar ${seconds} s (timeout), para que um wait longo (até 1200 s) não seja cortado.`,
  installOpen: (label, command) => `Abra o ${label} nesta pasta:  ${command}`,
  printAddTo: (file) => `Acrescente a ${file}:`,
  opencodeAllowed: (names) =>
    `As ferramentas do papo podem rodar sem pedir confirmação (permission: ${names}), para que o opencode run as use mesmo onde a sua configuração pede confirmação antes de cada ferramenta; nenhuma outra ferramenta ou servidor muda.`,
  opencodeNotJson: (file) =>
    `${file} não é JSON puro (tem comentários?), e o papo install não o reescreve: acrescente a entrada do papo à mão (papo install --client opencode --print mostra qual)`,
  opencodeUnreadable: (file, why) => `não consigo ler ${file} (${why})`,
  installLinked: (path, how, print) =>
    `${path} ${{ symbolic: 'é um link simbólico', hard: 'tem outro link físico (é também outro arquivo)', not_regular: 'não é um arquivo comum' }[how]}; o papo install não lê nem grava a configuração de um agente através de um link, nem em algo que não seja um arquivo comum (um link plantado num projeto pode levar a qualquer arquivo seu). Nada foi alterado. Apague-o (ou ponha um arquivo de verdade no lugar) e rode papo install de novo, ou acrescente a entrada do papo à mão: ${print}`,
  installWithheld: (label, names) =>
    `aviso: ${names.join(', ')} pode conter um segredo (um token na query ou no fragmento), então não é gravado na configuração do ${label}; o ${label} o repassa ao papo a partir do ambiente em que roda: inicie o ${label} com ${names.join(', ')} definido.`,
  qwenPush:
    'Na interface de terminal (0.24 ou mais novo) as mensagens do colega chegam sozinhas à conversa, como de um processo que a sessão iniciou (papo); o qwen -p só as lê quando o agente chama wait.',
  qwenTrusted:
    'A entrada do papo é confiável (trust: true): o Qwen Code roda as ferramentas do papo sem pedir confirmação, o que o qwen -p exige; nenhum outro servidor muda.',
  qwenFailed: (status, scope) =>
    `qwen mcp add falhou (${status}). Confira se o qwen roda, ou remova o papo com "qwen mcp remove --scope ${scope} papo" e rode papo install de novo`,
  qwenApproved:
    'A entrada do papo está aprovada para esta pasta (qwen mcp approve papo): o Qwen Code só inicia um servidor das configurações do projeto depois de aprovado, e o qwen -p não tem como perguntar; se a entrada mudar, o Qwen Code pergunta de novo.',
  qwenApproveFailed: (status) =>
    `qwen mcp approve papo falhou (${status}); a entrada do papo está escrita, mas o Qwen Code não a inicia antes de aprovada: rode "qwen mcp approve papo" nesta pasta`,
  qwenApproveByHand:
    'Depois, nesta pasta: qwen mcp approve papo (o Qwen Code só inicia um servidor das configurações do projeto depois de aprovado; o qwen -p não tem como perguntar).',
  installProfileMissing: (profile) =>
    `aviso: o perfil '${profile}' ainda não está configurado — rode papo new ou papo join antes de abrir o seu agente`,
  installHomeNote: (home) =>
    `aviso: PAPO_HOME está definido (${home}); o seu agente precisa iniciar o papo com o mesmo PAPO_HOME`,
  codexInstalled: (path) => `O papo está registrado no Codex CLI (${path}, [mcp_servers.papo]).`,
  codexTimeout: (seconds) =>
    `  tool_timeout_sec = ${seconds}: sem isso o Codex encerra uma chamada de ferramenta após 300 s, e o wait pode levar até 1200 s.`,
  codexApproval: (tools) =>
    `  ${tools.join(', ')} rodam sem pedir aprovação (approval_mode "approve", só para essas ferramentas do papo): o codex exec recusa ferramentas que pedem aprovação. Os outros servidores MCP não mudam.`,
  codexPassEnv: (names) =>
    `  ${names.join(', ')} repassado do ambiente em que o Codex roda (env_vars); o valor não é gravado.`,
  openCodex:
    'Abra o Codex na pasta do projeto:  codex   (na interface de terminal as mensagens do colega chegam como turnos próprios, marcadas como do papo; o codex exec só as lê quando o agente chama wait)',
  codexFailed: (status, said) =>
    `codex mcp add falhou (${status})${said ? `: ${said}` : ''}. Verifique se o codex roda (codex --version) e se CODEX_HOME, quando definido, é uma pasta que existe; depois rode papo install --client codex de novo`,
  codexNoEntry: (path) =>
    `o codex mcp add rodou, mas o papo não conseguiu acrescentar suas configurações em [mcp_servers.papo] de ${path}; nada mais foi alterado. Acrescente à mão (papo install --client codex --print mostra a entrada)`,
  codexThenAdd: (path) => `Depois acrescente estas linhas sob [mcp_servers.papo] em ${path}:`,
  geminiInstalled: (scope, file) => `O papo está registrado no Gemini CLI (escopo ${scope}, ${file}).`,
  geminiEntryNotes: (passEnv) => [
    '  "trust": true — o Gemini CLI roda as cinco ferramentas do papo (send, wait, inbox, history, status) sem pedir confirmação a cada vez; vale só para a entrada do papo, nenhum outro servidor ou ferramenta (execuções headless, gemini -p, recusam ferramentas que pedem confirmação).',
    '  "timeout": 1210000 — milissegundos que o Gemini CLI deixa uma chamada ao papo durar (o padrão dele é 10 minutos): um wait de até 20 minutos nunca é cortado.',
    ...passEnv.map(
      (name) =>
        `  "${name}": "$${name}" — uma referência, não o valor: o Gemini CLI esconde dos servidores que inicia as variáveis cujo nome tem TOKEN, KEY ou SECRET, e passa esta ao papo a partir do próprio ambiente. Inicie o gemini com ${name} definido.`,
    ),
  ],
  geminiFolderTrust:
    'O Gemini CLI só inicia servidores MCP em pastas em que você confia: na primeira vez que abrir o gemini nesta pasta, responda ao "Do you trust the files in this folder?" com "Trust folder" (ou depois: /permissions trust). O papo install não marca nenhuma pasta como confiável por você. Execuções headless: gemini --skip-trust -p "..." confia na pasta só naquela execução.',
  geminiHomeNote: (home) =>
    `aviso: PAPO_HOME está definido (${home}) mas não é escrito nas configurações do projeto (elas podem ser compartilhadas); o Gemini CLI precisa iniciar o papo com o mesmo PAPO_HOME`,
  openGemini: 'Abra o Gemini CLI nesta pasta com:  gemini',
  geminiFailed: (status) =>
    `gemini mcp add falhou (${status}); adicione o papo à mão: papo install --client gemini --print`,
  geminiNotJson: (file, why) =>
    `${file} não é JSON puro (${why}), então o papo install não mexe nele: adicione à mão a entrada de papo install --client gemini --print`,
  badCount: (value) =>
    `-n precisa ser um número inteiro maior ou igual a 1 (recebido ${JSON.stringify(value)})`,
  logEmpty: '(nada no log desta sala ainda: ele se preenche quando o papo mcp do seu agente envia ou recebe)',
  logEmptyFollowing: '(nada no log desta sala ainda; esperando mensagens — Ctrl-C para parar)',
  webHelp: 'a sala no seu navegador: a conversa, o que você diz e a sua fila de revisão (só 127.0.0.1)',
  webPortHelp: 'a porta em que escutar (padrão: uma porta livre qualquer)',
  webNoOpenHelp: 'mostra o endereço sem abrir um navegador',
  webBadPort: (port) => `--port quer um número de porta de 0 a 65535, não ${JSON.stringify(port)}`,
  webOpenAt: (url) => `o papo web está em ${url} (só nesta máquina; Ctrl-C para parar)`,
  connecting: 'conectando…',
  deliveredTo: (names, id) => `entregue a ${names} (msg ${id})`,
  nobodyOnline: 'ninguém da sala está online agora; a mensagem não foi enviada',
  memberNotOnline: (name) => `${name} não está online agora; a mensagem não foi enviada`,
  notAcknowledged: (id, seconds) =>
    `enviada (msg ${id}), mas ninguém confirmou em ${seconds}s; o papo say não guarda fila, então ela pode não ter chegado`,
  impostorNote: (name, kind, node) =>
    `aviso: um membro com outra chave [${node}] disse ser ${name} (${kind}) no último dia; o papo do seu agente recusou o que ele mandou (o papo log mostra quando)`,
  inboxFull: (name, id) =>
    `não entregue (msg ${id}): a caixa de entrada de ${name} está cheia, porque o agente ainda não leu as mensagens que tem; o papo say não guarda fila, então diga de novo mais tarde`,
  knowNoOne: (suffix) =>
    `ainda não conheço ninguém nesta sala: os membros aparecem quando o papo deles está rodando (o agente deles aberto no projeto, depois do papo install). Peça ao colega para abrir e tente de novo (papo status${suffix}).`,
  statusHeader: (profile, name, roomId) => `Perfil ${profile}: você é "${name}" na sala ${roomId}.`,
  pushDoor: (name) =>
    `Push para o seu agente: ${name}: as mensagens da sala chegam a ele sem que ele chame wait.`,
  pushDoorNames: {
    'claude-session': 'mensagens de sessão do Claude Code (sem a flag de channels)',
    'qwen-session': 'mensagens de sessão do Qwen Code',
    'codex-queue': 'turnos enfileirados do Codex (codex queue)',
  },
  pushChannels: 'Push para o seu agente: channels (o Claude Code roda com o canal do papo).',
  pushPull: (why) =>
    `Push para o seu agente: nenhum; ele lê as mensagens da sala quando chama wait ou inbox (${why}).`,
  pushNoDoor:
    'o cliente não deu ao papo nenhuma porta: o Claude Code 2.1.332 ou mais novo, o Qwen Code 0.24 ou mais novo e o Codex CLI 0.171 ou mais novo têm uma, nas sessões interativas',
  pushFailed: (detail) => `falhou: ${detail}`,
  agentIdentity: (short) => `Identidade do agente: ${short}`,
  lookingFor: (seconds) => `Procurando membros da sala (até ${seconds}s)…`,
  online: 'online',
  offline: 'offline',
  onSignalServer: 'no servidor de sinalização, ainda sem link',
  notAnswering: (seconds, path) => `sem resposta há ${seconds}s, ${path} até então`,
  yourAgent: 'o seu agente',
  noMembersOnTopic: '  (ninguém encontrado)',
  signalProblem: (code, url, detail) => {
    switch (code) {
      case 'unauthorized':
        return tokenMayTravel(url)
          ? `aviso: o servidor de sinalização ${url} recusou a conexão: ele exige um token (defina PAPO_SIGNAL_TOKEN=${originOf(url)}=<token>)`
          : `aviso: o servidor de sinalização ${url} recusou a conexão: ele exige um token, e o papo nunca manda um token por ws:// a outra máquina (dê TLS a ele, papo signal --tls-cert/--tls-key ou um proxy na frente, e use wss://)`;
      case 'room_full':
        return `aviso: o servidor de sinalização ${url} diz que esta sala está cheia (${detail})`;
      case 'rate_limited':
      case 'topic_limit':
        return `aviso: o servidor de sinalização ${url} recusou o papo por enquanto (${detail}); tente de novo daqui a pouco`;
      case 'pin_mismatch':
        return `aviso: o servidor de sinalização ${url} apresenta um certificado cuja chave não é a que o convite desta sala fixa: a chave dele mudou, ou outra máquina responde nesse endereço; o papo não manda nada a ele. Pergunte a quem opera o servidor; se a chave mudou, peça um convite novo`;
      case 'not_papo':
        return `aviso: ${url} não responde como um servidor de sinalização do papo (${detail}); confira a URL de sinalização da sala (o convite, ou PAPO_SIGNAL)`;
      default:
        return `aviso: não foi possível alcançar o servidor de sinalização em ${url} (${detail}); ele está no ar e acessível desta rede?`;
    }
  },
  joinCheck: (outcome, url, detail) => {
    switch (outcome) {
      case 'accepted':
        return `O servidor de sinalização ${url} responde e aceita o token desta sala.`;
      case 'welcome':
        return `O servidor de sinalização ${url} responde.`;
      case 'unauthorized':
        return `aviso: o servidor de sinalização ${url} responde mas recusa o token desta sala (${detail}): peça um convite novo, ou defina PAPO_SIGNAL_TOKEN=${originOf(url)}=<token>`;
      case 'pin_mismatch':
        return `aviso: o servidor de sinalização ${url} apresenta um certificado cuja chave não é a que este convite fixa: a chave dele mudou, ou outra máquina responde nesse endereço; o papo não manda nada a ele. Peça um convite novo`;
      case 'token_invalid':
        return `aviso: ${detail}`;
      case 'unreachable':
        return `nota: o servidor de sinalização ${url} não responde agora (${detail}); a sala fica guardada, e o papo encontra os outros lá quando ele responder (o papo doctor o verifica)`;
      default:
        return `aviso: ${url} não responde como um servidor de sinalização do papo deveria (${detail}); confira o endereço de sinalização do convite (o papo doctor diz mais)`;
    }
  },
  joinCertificate(url, problem) {
    return `aviso: ${this.certificateProblem(url, problem)}; o papo não manda nada a ele. ${this.certificateFix(problem)}`;
  },
  certificateProblem: (url, problem) =>
    ({
      self_signed: `o servidor de sinalização ${url} apresenta um certificado autoassinado, e o endereço da sala não fixa nenhuma chave para ele`,
      unknown_ca: `o servidor de sinalização ${url} apresenta um certificado assinado por uma autoridade em que esta máquina não confia`,
      expired: `o servidor de sinalização ${url} apresenta um certificado vencido`,
      not_yet_valid: `o servidor de sinalização ${url} apresenta um certificado que ainda não vale`,
      name_mismatch: `o servidor de sinalização ${url} apresenta um certificado feito para outro nome que não ${hostOf(url)}`,
    })[problem],
  certificateFix: (problem) =>
    ({
      self_signed:
        'Peça a quem opera o servidor a linha papo new que o papo signal --public imprime (o endereço dela fixa a chave), crie a sala com ela e entre com o convite novo; ou confie no certificado com NODE_EXTRA_CA_CERTS=/caminho/do/cert.pem',
      unknown_ca:
        'Defina NODE_EXTRA_CA_CERTS=/caminho/da/ca.pem onde o papo roda (o papo install o repassa ao agente), ou use um endereço com pin (o papo signal --public imprime um)',
      expired:
        'Quem opera o servidor precisa renová-lo (o papo signal --public renova o próprio certificado sozinho; o de uma CA, com o cliente da CA, p. ex. certbot)',
      not_yet_valid: 'Confira a data e a hora desta máquina; se estiverem certas, as do servidor',
      name_mismatch:
        'Use no endereço da sala o nome para o qual o certificado foi feito, ou peça a quem opera que faça um para este nome (o papo signal --public ENDEREÇO o faz para ENDEREÇO)',
    })[problem],
  transportTrouble: (why, restarts) =>
    `aviso: o processo de rede do papo ${why} (reiniciado ${restarts} ${restarts === 1 ? 'vez' : 'vezes'})`,
  localOnlyRoom: (url) =>
    `esta sala se encontra em ${url}, só nesta máquina: um colega em outra máquina precisa de um convite feito com --signal`,
  noPath: (names, others, url, seconds, reason, source) => {
    const who = [...names];
    if (others > 0)
      who.push(others === 1 ? 'um membro ainda não visto' : `${others} membros ainda não vistos`);
    const many = who.length > 1 || others > 1;
    const head = `aviso: ${who.join(' e ')} ${many ? 'estão' : 'está'} no servidor de sinalização ${url} (não ${many ? 'saíram' : 'saiu'} da sala), mas nenhum caminho de rede entre as máquinas funciona: nenhum link se formou em ${seconds}s`;
    switch (reason) {
      case 'relay_without_turn':
        return `${head}. PAPO_ICE_POLICY=relay só permite caminhos retransmitidos e nenhum relay TURN está configurado: remova PAPO_ICE_POLICY, ou dê ao papo um relay TURN (PAPO_ICE_SERVERS, ou um servidor de sinalização que forneça um)`;
      case 'turn_limited':
        return `${head}. O servidor de sinalização tem um relay TURN mas não fornece nenhum a esta máquina por ora (este endereço já teve a sua parte): um token para esse servidor (PAPO_SIGNAL_TOKEN) tira o limite`;
      case 'turn_failed':
        return `${head}. Há um relay TURN configurado, mas nenhum caminho se formou por ele (inalcançável de uma das máquinas, ou recusando as credenciais): rode papo doctor nas duas máquinas`;
      default:
        return source === 'env'
          ? `${head}. PAPO_ICE_SERVERS não tem nenhum relay TURN, e um caminho direto não funciona entre estas redes (um NAT simétrico, ou UDP bloqueado): acrescente um relay TURN a PAPO_ICE_SERVERS`
          : `${head}. O servidor de sinalização não fornece nenhum relay TURN, e um caminho direto não funciona entre estas redes (um NAT simétrico, ou UDP bloqueado): instale o coturn no servidor de sinalização (o papo signal o inicia quando turnserver está no PATH) ou defina PAPO_TURN_URLS e PAPO_TURN_SECRET lá; ou aponte cada membro para um relay TURN com PAPO_ICE_SERVERS`;
    }
  },
  papoRelayNote:
    'nota: PAPO_RELAY está definido, mas este papo não o usa: configure servidores TURN com PAPO_ICE_SERVERS (README, "Behind a corporate network")',
  agentTransportRestarts: (restarts, when, why) =>
    `O papo mcp do seu agente reiniciou o processo de rede ${restarts === 1 ? 'uma vez' : `${restarts} vezes`}; a última às ${when}, porque ${why}.`,
  counts: (queued, unread) => `Mensagens na fila de envio: ${queued}. Não lidas pelo agente: ${unread}.`,
  badTimeout: (value) =>
    `--timeout precisa ser um número de segundos de 1 a 600 (recebido ${JSON.stringify(value)})`,
  sayEmpty: 'a mensagem está vazia',
  sayTooLarge: (kib) => `a mensagem passa de ${kib} KiB`,
  notAMessageId: 'não é um id de mensagem',
  forgotten: (name, released) =>
    `${name} foi esquecido: ${released === 1 ? '1 mensagem na fila não espera mais' : `${released} mensagens na fila não esperam mais`} por ele, e as novas mensagens não são mais devidas a ele. Se ${name} voltar, volta a ser membro.`,
  forgottenByAgent: (name) =>
    `${name} foi esquecido: o papo mcp do seu agente não espera mais por ele, e as novas mensagens não são mais devidas a ele. Se ${name} voltar, volta a ser membro.`,
  forgetLeft: (name) =>
    `o papo mcp está com este perfil mas não pegou o pedido em 5s; ele esquece ${name} assim que olhar (no mais tardar quando iniciar de novo)`,
  forgetUnknown: (name, suffix) =>
    `nenhum membro chamado "${name}" é conhecido nesta sala, e nada espera por ele (papo status${suffix} lista os membros)`,
  forgetSelf: (name) => `"${name}" é você: o papo forget é para outros membros que saíram da sala`,
  forgetHelp:
    'para de esperar por um membro que saiu da sala de vez: as mensagens na fila não esperam mais por ele, e as novas não são devidas a ele',
  forgetNameHelp: 'o nome do membro na sala (maiúsculas ou minúsculas)',
  queuedFor: (waiting, suffix, offerForget) =>
    `Esperando por: ${waiting.map(({ name, count }) => `${name} (${count})`).join(', ')}.${offerForget ? ` Quem saiu de vez: papo forget NOME${suffix}.` : ''}`,
  firstToConfirm: 'o primeiro membro que confirmar',
  sayLater: (names) =>
    `${names} offline: o papo say não guarda fila, mas os membros que guardaram a mensagem a repassam quando se conectarem (em até 24 h)`,
  signalLoopbackOnly: (url) =>
    `nota: ${url} escuta no loopback: só esta máquina o alcança. Para colegas em outras máquinas: papo signal --public <o nome ou endereço que eles alcançam>`,
  signalNoTurn: [
    'AVISO: sem servidor TURN: o coturn (turnserver) não está no PATH. Membros atrás de um NAT simétrico ou de um firewall que bloqueia UDP não vão se ligar.',
    'AVISO: solução: instale o coturn (apt install coturn, brew install coturn) e inicie o papo signal de novo, ou aponte para um servidor TURN com PAPO_TURN_URLS e PAPO_TURN_SECRET.',
  ],
  signalPorts: (ports) =>
    `Abra estas portas para esta máquina (no firewall dela, no grupo de segurança da nuvem): ${portList(ports, 'e', PT_PORT_USES)}. Membros cuja rede não as alcança não se ligam; o papo doctor do lado deles diz quando as portas TURN deste servidor parecem fechadas.`,
  portList: (ports) => portList(ports, 'e', PT_PORT_USES),
  signalMapped: (address, privateIp) =>
    `${address} não está em nenhuma interface desta máquina (NAT 1:1, como numa VM de nuvem): o coturn abre os relays em ${privateIp}, o endereço que ele representa, e entrega ${address} (external-ip).`,
  signalCreatorCommand:
    'Quem cria a sala roda isto (contém o token do servidor: mande por um canal privado):',
  error: (err, hints) => {
    const profile = hints.profile ?? 'default';
    const { message } = err;
    switch (err.code) {
      case 'invalid_name':
        return `nome inválido${hints.name !== undefined ? ` ${JSON.stringify(hints.name)}` : ''}: use de 1 a 32 caracteres entre letras A-Z a-z, números, "-", "_" e "."`;
      case 'invalid_profile_name':
        return `nome de perfil inválido ${JSON.stringify(profile)}: use de 1 a 32 caracteres entre letras A-Z a-z, números, "-" e "_"`;
      case 'profile_exists':
        return `o perfil '${profile}' já existe; use --force para substituí-lo (a sua identidade e o log são mantidos)`;
      case 'profile_missing':
        return `o perfil '${profile}' não está configurado — rode papo new ou papo join`;
      case 'profile_corrupt':
        return `o perfil '${profile}' está danificado (${message}); substitua com papo new --force ou papo join --force`;
      case 'profile_locked':
        return 'outro servidor papo já está rodando com este perfil';
      case 'home_unwritable':
        return `não foi possível gravar na pasta do papo${hints.home ? ` ${hints.home}` : ''} — confira PAPO_HOME e as permissões (${message})`;
      case 'invalid_invite':
        return err.detail.problem === 'signal_fragment'
          ? signalFragmentPt('invite', err.detail.fragment)
          : INVITE_PT[err.detail.problem];
      case 'invalid_signal_token':
        return signalTokenPt(err.detail);
      case 'profile_link':
        return `${err.detail.path} é um link (simbólico ou físico) ou não é um arquivo comum; o papo não lê nem grava os arquivos do perfil através de links: apague-o, ou ponha o arquivo de verdade no lugar`;
      case 'attach_refused':
        return attachPt(err.detail);
      case 'no_invite':
        return 'nenhum convite foi dado: passe-o pela entrada padrão (papo join --name <nome> < convite.txt), digite-o quando pedido, ou dê-o como argumento';
      case 'listen_failed': {
        const d = err.detail;
        if (d.listener === 'signal') {
          return d.errno === 'EADDRINUSE'
            ? 'esse endereço e porta já estão em uso (outro servidor de sinalização?)'
            : 'permissão negada para escutar nessa porta';
        }
        const inUse =
          d.errno === 'EADDRINUSE'
            ? ' está em uso: defina PAPO_SIGNAL_METRICS com outro endereço, ou off'
            : '';
        return `o endereço de métricas ${d.address} (PAPO_SIGNAL_METRICS): ${d.errno ?? d.reason}${inUse}`;
      }
      case 'invalid_signal_url':
        if (err.detail.fragment !== undefined)
          return signalFragmentPt(err.detail.source, err.detail.fragment);
        if (err.detail.source === 'PAPO_SIGNAL') return 'PAPO_SIGNAL não é uma URL válida';
        return '--signal não é uma URL válida (use ws://, wss://, http:// ou https://, por exemplo wss://sinal.exemplo.com)';
      default:
        return undefined;
    }
  },
};

/** Why papo will not send a file (ADR 0121), from the data alone. */
function attachPt(p: PapoErrorDetails['attach_refused']): string {
  switch (p.problem) {
    case 'not_found':
      return `${p.path}: arquivo não encontrado`;
    case 'link':
      return `${p.path} é um link simbólico; o papo envia arquivos, não links: dê o arquivo para o qual ele aponta, se estiver no projeto`;
    case 'folder':
      return `${p.path} é uma pasta; o papo envia arquivos um a um`;
    case 'not_file':
      return `${p.path} não é um arquivo comum (um dispositivo, um pipe ou um socket); o papo envia só arquivos comuns`;
    case 'outside':
      return `${p.path} está fora da pasta do projeto; o papo envia só arquivos dentro da pasta em que roda`;
    case 'unreadable':
      return `${p.path} não pode ser lido (permissão negada)`;
    case 'too_large':
      return `${p.path} tem ${p.size} bytes, mais que os ${p.limit} bytes que um arquivo pode ter (PAPO_ATTACH_MAX_FILE_MIB)`;
    case 'changed':
      return `${p.path} mudou enquanto o papo o lia; envie de novo quando ele estiver escrito`;
  }
}

const INVITE_PT: Record<Exclude<PapoErrorDetails['invalid_invite']['problem'], 'signal_fragment'>, string> = {
  not_papo: 'isto não é um convite do papo (um convite começa com "papo1")',
  no_signal_url: 'este convite não traz uma URL de sinalização utilizável',
  damaged:
    'este convite está danificado ou foi cortado ao copiar; peça de novo (a outra pessoa roda "papo invite")',
};

/** The origin of a signal URL for the ORIGIN=TOKEN form (the URL itself if it cannot be parsed). */
function originOf(url: string): string {
  try {
    return signalOrigin(url);
  } catch {
    return url;
  }
}

/** The host of a URL, as a certificate names it (the URL itself if it cannot be parsed). */
function hostOf(url: string): string {
  try {
    return bareHost(new URL(url).hostname);
  } catch {
    return url;
  }
}

/** A signal address's refused fragment (src/client/wire/signal-url.ts) in Portuguese; it shows no token. */
function signalFragmentPt(
  source: PapoErrorDetails['invalid_signal_url']['source'],
  p: SignalFragmentProblem,
): string {
  const who =
    source === 'PAPO_SIGNAL' || source === '--signal' ? source : 'o endereço de sinalização deste convite';
  let reason: string;
  switch (p.problem) {
    case 'pin_without_tls':
      return `${who} traz um pin de certificado numa URL sem TLS: um pin é para wss:// ou https://`;
    case 'token_in_clear':
      return `${who} traz um token para um servidor sem TLS em outra máquina: ele viajaria às claras, então o papo nunca o envia (use wss://)`;
    case 'two_pins':
      reason = 'dois pins';
      break;
    case 'two_tokens':
      reason = 'dois tokens';
      break;
    case 'pin_shape':
      reason = 'o pin não é sha256/ e 43 caracteres base64url';
      break;
    case 'token_shape':
      reason = 'o token precisa ter de 1 a 128 letras, dígitos ou - . _ ~ + / =';
      break;
    case 'unknown_part':
      reason = `uma parte desconhecida${p.name === '' ? '' : ` "${p.name}"`}`;
      break;
  }
  return `${who} tem um fragmento que o papo não sabe ler (${reason}); um endereço de sinalização pode terminar em #pin=sha256/…&token=… e nada mais`;
}

/** PAPO_SIGNAL_TOKEN's errors (src/client/net/signal-token.ts) in Portuguese; they name origins only. */
function signalTokenPt(p: SignalTokenProblem): string {
  switch (p.problem) {
    case 'in_clear':
      return `PAPO_SIGNAL_TOKEN associa um token a ${p.origin}: por ws:// até outra máquina ele viajaria às claras, então o papo nunca o envia. Ponha TLS na frente do servidor de sinalização e use wss:// (docs/signal-server.md)`;
    case 'bare_unbound': {
      const head =
        'PAPO_SIGNAL_TOKEN é um token sem servidor, e o papo só manda um token ao servidor a que ele está associado';
      return p.inClear
        ? `${head}; o servidor desta sala, ${p.origin}, é ws:// simples em outra máquina, aonde um token nunca é enviado: ponha TLS na frente dele e escreva PAPO_SIGNAL_TOKEN=wss://HOST=TOKEN`
        : `${head}; para o servidor desta sala escreva PAPO_SIGNAL_TOKEN=${p.origin}=TOKEN`;
    }
    case 'no_token':
      return `PAPO_SIGNAL_TOKEN cita ${p.origin} sem token: escreva ${p.origin}=TOKEN`;
    case 'two_tokens':
      return `PAPO_SIGNAL_TOKEN dá dois tokens diferentes a ${p.origin}`;
    case 'bare_twice':
      return 'PAPO_SIGNAL_TOKEN tem mais de um token sem servidor: escreva cada um como ORIGEM=TOKEN (por exemplo wss://sinal.exemplo.com=TOKEN)';
    case 'not_origin':
      return `PAPO_SIGNAL_TOKEN cita ${p.shown}, que não é a origem de um servidor: escreva ORIGEM=TOKEN, com ORIGEM como wss://sinal.exemplo.com ou wss://sinal.exemplo.com:8443 (sem caminho)`;
  }
}

export function messages(lang: Lang): Messages {
  return lang === 'pt' ? pt : en;
}

/** The one line the CLI prints for a failure, without the "error: " prefix. */
export function errorText(err: unknown, lang: Lang, hints: ErrorHints = {}): string {
  if (isPapoError(err)) return messages(lang).error(err, hints) ?? err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
