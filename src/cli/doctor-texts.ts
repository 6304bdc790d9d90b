// papo doctor's texts in English and Brazilian Portuguese (the rest of the CLI's are in i18n.ts).
// Every line is one line; none carries a token, a TURN credential or the room secret.
import type { CertificateProblem } from '../client/net/signal-probe.js';
import { type Lang, messages } from './i18n.js';
import type { OpenPort } from './signal-public/public-signal.js';

type Why = 'relay-without-turn' | 'symmetric-without-turn' | 'no-stun-without-turn';
type Via = 'relay' | 'this-machine' | 'direct' | 'direct-nat-unknown';

export interface DoctorTexts {
  label(id: string): string;
  status(s: 'ok' | 'warn' | 'fail' | 'skip'): string;
  fixPrefix: string;
  summary(counts: Record<'ok' | 'warn' | 'fail' | 'skip', number>, ok: boolean, seconds: string): string;
  progress(what: 'signal' | 'network' | 'clients'): string;
  notChecked: string;
  nodeOk(
    version: string,
    platform: string,
    endOfLife: string | undefined,
    tested?: readonly number[],
  ): string;
  nodeTooOld(version: string, minimum: string, endOfLife: string | undefined): string;
  nodeEndOfLife(version: string, endOfLife: string): string;
  nodeFix(tested: readonly number[]): string;
  profileOk(profile: string, name: string, roomId: string): string;
  profileFix(suffix: string): string;
  signalOk(url: string, ms: number): string;
  signalUnreachable(url: string, detail: string): string;
  signalLocalFix(suffix: string): string;
  signalFix: string;
  signalRefused(url: string, detail: string): string;
  signalRefusedFix: string;
  signalNotPapo(url: string, detail: string): string;
  signalNotPapoFix: string;
  signalPinMismatch(url: string): string;
  signalPinMismatchFix: string;
  signalCertificate(url: string, problem: CertificateProblem): string;
  signalCertificateFix(problem: CertificateProblem): string;
  networkNotChecked: string;
  tokenAccepted: string;
  tokenNotNeeded: string;
  tokenRefused: string;
  tokenRequired: string;
  tokenRefusedFix(origin: string): string;
  tokenSetFix(origin: string): string;
  tokenTlsFix: string;
  tokenInvalidFix: string;
  scopeLoopback(url: string): string;
  scopeFix(suffix: string): string;
  scopeShared: string;
  withCredentials: string;
  iceServers(source: string, list: string): string;
  iceFix: string;
  policy(p: 'all' | 'relay'): string;
  policyInvalid(value: string): string;
  policyFix: string;
  stunNone: string;
  stunOk(mapped: string, url: string, ms: number, answered: number, asked: number): string;
  stunNoAnswer(detail: string): string;
  stunNotNeeded(detail: string): string;
  stunFix: string;
  natSame(n: number): string;
  natVaries(pairs: string): string;
  natFix: string;
  natUnknown: string;
  turnNone: string;
  turnNotHandedOut(url: string): string;
  turnNotHandedOutFix: string;
  turnAllocated(url: string, relayed: string, ms: number): string;
  turnNotReleased(url: string, relayed: string, ms: number): string;
  turnNotReleasedFix: string;
  turnRefused(url: string, code: number, detail: string): string;
  turnRefusedFix(code: number, source: string): string;
  turnUnsupported(url: string, detail: string): string;
  turnUnsupportedFix: string;
  turnUnreachable(url: string, detail: string): string;
  turnUnreachableFix(transport: string): string;
  turnUntrusted(url: string, detail: string): string;
  turnUntrustedFix: string;
  /** The signal server's host answers, its TURN server does not (diagnoseTurn): for its operator. */
  turnPortsClosedFix(host: string, ports: readonly OpenPort[]): string;
  /** Only TURN over TCP or TLS answers (diagnoseTurn): a note, the room works. */
  udpBlockedNote(via: string): string;
  pathOk(via: Via): string;
  pathUnsure: string;
  pathFail(why: Why): string;
  pathFix(why: Why): string;
  clientRegistered(detail: string): string;
  clientMissing: string;
  clientUnknown(id: string): string;
  clientFix(id: string, suffix: string): string;
  channelsOk: string;
  channelsOff(names: readonly string[]): string;
  channelsFix(names: readonly string[]): string;
  sessionOk: string;
  sessionOff(value: string): string;
  sessionFix: string;
  /** The running papo mcp's room works: who is online to it. */
  roomOk(online: readonly string[]): string;
  /** The running papo mcp's room does not work: the fix after its own lines (papo status's). */
  roomFix: string;
  /** The running session pulls only: how to get push. */
  pushFix: string;
}

const TURN_ENV_FIX =
  'PAPO_ICE_SERVERS for your own TURN, or PAPO_TURN_URLS and PAPO_TURN_SECRET on the signal server';

const en: DoctorTexts = {
  label: (id) =>
    ({
      node: 'node',
      profile: 'profile',
      signal: 'signal',
      token: 'token',
      scope: 'room scope',
      ice: 'ICE servers',
      policy: 'ICE policy',
      stun: 'STUN',
      nat: 'NAT',
      turn: 'TURN',
      path: 'path',
      room: 'room now',
      channels: 'channels',
      session: 'push',
      'push-now': 'push now',
    })[id] ?? id,
  status: (s) => ({ ok: '[ok]', warn: '[warn]', fail: '[FAIL]', skip: '[skip]' })[s],
  fixPrefix: 'fix: ',
  summary: (c, ok, seconds) =>
    `${c.ok} ok, ${c.warn} warning${c.warn === 1 ? '' : 's'}, ${c.fail} failure${c.fail === 1 ? '' : 's'} in ${seconds} s: ${ok ? 'the room can work from here' : 'the room cannot work from here until the failures are fixed'}.`,
  progress: (what) =>
    ({
      signal: 'papo doctor: asking the signal server…',
      network: 'papo doctor: asking the STUN and TURN servers…',
      clients: 'papo doctor: asking the agent CLIs…',
    })[what],
  notChecked: 'not checked (the signal server did not answer)',
  nodeOk: (version, platform, endOfLife, tested) =>
    `Node.js ${version} (${platform})${endOfLife === undefined ? '' : `, maintained until ${endOfLife}`}${tested === undefined ? '' : `; papo is tested on Node ${tested.join(', ')}`}`,
  nodeTooOld: (version, minimum, endOfLife) =>
    `Node.js ${version} is older than papo supports (${minimum} or newer)${endOfLife === undefined ? '' : ` and past its end of life (${endOfLife}): no security fixes`}`,
  nodeEndOfLife: (version, endOfLife) =>
    `Node.js ${version} is past its end of life (${endOfLife}): no security fixes`,
  nodeFix: (tested) =>
    `install a maintained Node (${tested.join(', ')}) from nodejs.org or your version manager (nvm install ${tested[tested.length - 1]}), then npm install -g papo again`,
  profileOk: (profile, name, roomId) => `${profile}: you are "${name}" in room ${roomId}`,
  profileFix: (suffix) =>
    `papo new --name YOUR-NAME${suffix}, or papo join --name YOUR-NAME${suffix} with an invite`,
  signalOk: (url, ms) => `${url} answered in ${ms} ms`,
  signalUnreachable: (url, detail) => `cannot reach ${url} (${detail})`,
  signalLocalFix: (suffix) =>
    `this room's signal server runs inside papo mcp on this machine: open your agent (or run papo signal), then papo doctor${suffix} again`,
  signalFix:
    "is the signal server running, and reachable from this network? Check the room's signal URL (the invite, or PAPO_SIGNAL)",
  signalRefused: (url, detail) => `${url} turned papo away (${detail})`,
  signalRefusedFix: 'try again in a moment; if it persists, ask the signal server operator about its limits',
  signalNotPapo: (url, detail) => `${url} does not answer as a papo signal server (${detail})`,
  signalNotPapoFix: "check the room's signal URL (the invite, or PAPO_SIGNAL) and any proxy in front of it",
  signalPinMismatch: (url) =>
    `${url} presents a certificate whose key is not the one the room's invite pins (its key changed, or another machine answers there); papo sent it nothing`,
  signalPinMismatchFix:
    "ask the server's operator whether its key changed; if it did, the room's creator runs the new papo new line papo signal --public prints, and everyone joins with the new invite",
  signalCertificate: (url, problem) => messages('en').certificateProblem(url, problem),
  signalCertificateFix: (problem) => lowerFirst(messages('en').certificateFix(problem)),
  networkNotChecked:
    "STUN, NAT and TURN not checked: this room's ICE servers come with the signal server's answer, and there was none",
  tokenAccepted: 'accepted',
  tokenNotNeeded: 'none sent, none needed',
  tokenRefused: 'the signal server refused the token papo sent',
  tokenRequired: 'the signal server requires a token, and none is set for it',
  tokenRefusedFix: (origin) =>
    `check the token for ${origin} in PAPO_SIGNAL_TOKEN (it must be the server's own PAPO_SIGNAL_TOKEN)`,
  tokenSetFix: (origin) => `set PAPO_SIGNAL_TOKEN=${origin}=<token> (ask the signal server's operator)`,
  tokenTlsFix:
    'papo never sends a token over ws:// to another machine: put TLS in front of the server and use wss://',
  tokenInvalidFix: 'correct PAPO_SIGNAL_TOKEN as the line says (docs/signal-server.md)',
  scopeLoopback: (url) =>
    `${url} is on this machine only: profiles on this machine meet there, colleagues on other machines cannot`,
  scopeFix: (suffix) =>
    `for colleagues elsewhere: papo new --force --name YOUR-NAME --signal wss://your-signal-server${suffix} (docs/signal-server.md)`,
  scopeShared: 'the signal URL is not on this machine only',
  withCredentials: ' (with credentials)',
  iceServers: (source, list) =>
    `${({ env: 'from PAPO_ICE_SERVERS', welcome: 'from the signal server', default: "papo's default" } as Record<string, string>)[source] ?? source}: ${list}`,
  iceFix: 'correct PAPO_ICE_SERVERS: a JSON array of {"urls", "username", "credential"}',
  policy: (p) =>
    p === 'relay' ? 'relay: relayed paths only (PAPO_ICE_POLICY=relay)' : 'all: direct and relayed paths',
  policyInvalid: (value) =>
    `PAPO_ICE_POLICY=${JSON.stringify(value.slice(0, 40))} is neither "relay" nor "all"`,
  policyFix: 'set PAPO_ICE_POLICY=relay, or unset it',
  stunNone: 'no STUN server to ask',
  stunOk: (mapped, url, ms, answered, asked) =>
    `seen from ${mapped} (${url}, ${ms} ms; ${answered} of ${asked} answered)`,
  stunNoAnswer: (detail) => `no STUN server answered (${detail})`,
  stunNotNeeded: (detail) =>
    `no STUN server answered (${detail}); not needed between profiles of this machine`,
  stunFix: `UDP may be blocked here: links then need TURN over TCP or TLS (${TURN_ENV_FIX})`,
  natSame: (n) => `the same mapping towards ${n} destinations: not a symmetric NAT`,
  natVaries: (pairs) => `the mapping changes per destination (${pairs}): a symmetric NAT`,
  natFix: `direct links from behind a symmetric NAT rarely work: make sure a TURN server works (${TURN_ENV_FIX})`,
  natUnknown: 'fewer than two STUN destinations answered: cannot tell whether the NAT is symmetric',
  turnNone: 'no TURN server configured',
  turnNotHandedOut: (url) =>
    `the signal server ${url} hands out no TURN server: a colleague behind a symmetric NAT, or where UDP is blocked, cannot link with you`,
  turnNotHandedOutFix:
    'on the server: install coturn (papo signal --public starts it by itself), or set PAPO_TURN_URLS and PAPO_TURN_SECRET there; or here: PAPO_ICE_SERVERS with a TURN server of your own',
  turnAllocated: (url, relayed, ms) => `${url}: allocated ${relayed} in ${ms} ms, given back`,
  turnNotReleased: (url, relayed, ms) =>
    `${url}: allocated ${relayed} in ${ms} ms, but the server did not confirm it was given back`,
  turnNotReleasedFix: 'nothing to do now: the TURN server drops it by itself within 10 minutes',
  turnRefused: (url, code, detail) => `${url}: allocation refused (${code}${detail ? ` ${detail}` : ''})`,
  turnRefusedFix: (code, source) => {
    if (code === 401)
      return source === 'env'
        ? 'check the username and credential of this server in PAPO_ICE_SERVERS'
        : "the signal server's PAPO_TURN_SECRET must equal the TURN server's static-auth-secret (ask the operator)";
    if (code === 486)
      return "this user's allocation quota is used up (coturn user-quota): close other papo processes, or raise the quota";
    if (code === 403)
      return "the TURN server forbids this allocation (its own rules): ask the TURN server's operator";
    return "ask the TURN server's operator what this refusal means";
  },
  turnUnsupported: (url, detail) => `${url}: papo cannot use this URL (${detail})`,
  turnUnsupportedFix: 'give a turn: or turns: URL with a username and a credential',
  turnUnreachable: (url, detail) => `${url}: no allocation (${detail})`,
  turnUnreachableFix: (transport) =>
    `this network may block TURN over ${transport.toUpperCase()} to that server: is it running? A turns: URL on port 443 passes most firewalls`,
  turnUntrusted: (url, detail) => `${url}: the TLS certificate is not trusted (${detail})`,
  turnUntrustedFix:
    "fix the TURN server's certificate, or trust its CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem for papo",
  turnPortsClosedFix: (host, ports) =>
    `not your network: ${host} answers as a signal server, but its TURN server answers neither over UDP nor over TCP, so its TURN ports are closed to you. Its operator opens ${messages('en').portList(ports)} to that machine (the lines papo signal --public printed) and checks that coturn runs`,
  udpBlockedNote: (via) =>
    `nothing to do: UDP seems blocked on this network (or closed at the server), so links go through TURN over TCP (${via} works) and the room works`,
  pathOk: (via) =>
    ({
      relay: 'the room can work: a relayed path (TURN) works from here',
      'this-machine': 'the room can work: its members are on this machine, and meet without STUN or TURN',
      direct: 'the room can work: a direct path looks possible (STUN answered; the NAT is not symmetric)',
      'direct-nat-unknown':
        'the room can work: a direct path looks possible (STUN answered; NAT type not known)',
    })[via],
  pathUnsure:
    'a direct path may work (STUN answered), but papo cannot tell whether this NAT is symmetric, and there is no TURN to fall back on',
  pathFail: (why) =>
    ({
      'relay-without-turn':
        'no path: PAPO_ICE_POLICY=relay allows relayed paths only, and no TURN allocation worked',
      'symmetric-without-turn': 'no path: behind a symmetric NAT, and no TURN allocation worked',
      'no-stun-without-turn': 'no path: no STUN server answered, and no TURN allocation worked',
    })[why],
  pathFix: (why) =>
    why === 'relay-without-turn'
      ? `configure a TURN server (${TURN_ENV_FIX}), or unset PAPO_ICE_POLICY`
      : `configure a TURN server that works from here (${TURN_ENV_FIX})`,
  clientRegistered: (detail) => `papo is registered${detail ? ` (${detail})` : ''}`,
  clientMissing: 'papo is not registered for this project',
  clientUnknown: (id) => `could not tell whether papo is registered (${id} did not answer in time)`,
  clientFix: (id, suffix) => `papo install --client ${id}${suffix}`,
  channelsOk: "no variable turns Claude Code's channels off",
  channelsOff: (names) =>
    `${names.join(', ')} set: Claude Code turns its channels off (its session messages, from 2.1.332, still bring papo's messages to your agent)`,
  channelsFix: (names) => `unset ${names.join(' ')} where Claude Code starts`,
  sessionOk:
    "no variable turns Claude Code's session messages off: from 2.1.332 they bring papo's messages to your agent with no flag",
  sessionOff: (value) =>
    `CLAUDE_CODE_HARBOR_KITE=${value} set: Claude Code gives papo no session messages, so messages reach your agent only through channels or when it calls wait or inbox`,
  sessionFix: 'unset CLAUDE_CODE_HARBOR_KITE where Claude Code starts',
  roomOk: (online) =>
    online.length === 0
      ? "your agent's papo mcp is in the room; nobody else is online to it now"
      : `your agent's papo mcp is in the room; online to it: ${online.join(', ')}`,
  pushFix:
    "open your agent the usual way, in its interactive session (not --bare, not claude -p, qwen -p or codex exec): Claude Code 2.1.332 or later, Qwen Code 0.24 or later and Codex CLI 0.171 or later bring papo's messages in with no flag; elsewhere the agent reads them when it calls wait",
  roomFix:
    "that is your agent's papo mcp's own view, as papo status shows it: it may run with another environment than this terminal (PAPO_ICE_POLICY, PAPO_ICE_SERVERS, PAPO_SIGNAL_TOKEN); change it where your agent starts, then restart the session",
};

const pt: DoctorTexts = {
  label: (id) =>
    ({
      node: 'node',
      profile: 'perfil',
      signal: 'sinalização',
      token: 'token',
      scope: 'alcance',
      ice: 'servidores ICE',
      policy: 'política ICE',
      stun: 'STUN',
      nat: 'NAT',
      turn: 'TURN',
      path: 'caminho',
      room: 'sala agora',
      channels: 'canais',
      session: 'push',
      'push-now': 'push agora',
    })[id] ?? id,
  status: (s) => ({ ok: '[ok]', warn: '[aviso]', fail: '[FALHA]', skip: '[pulado]' })[s],
  fixPrefix: 'como resolver: ',
  summary: (c, ok, seconds) =>
    `${c.ok} ok, ${c.warn} aviso${c.warn === 1 ? '' : 's'}, ${c.fail} falha${c.fail === 1 ? '' : 's'} em ${seconds} s: ${ok ? 'a sala pode funcionar daqui' : 'a sala não funciona daqui até as falhas serem resolvidas'}.`,
  progress: (what) =>
    ({
      signal: 'papo doctor: consultando o servidor de sinalização…',
      network: 'papo doctor: consultando os servidores STUN e TURN…',
      clients: 'papo doctor: consultando as CLIs de agente…',
    })[what],
  notChecked: 'não verificado (o servidor de sinalização não respondeu)',
  nodeOk: (version, platform, endOfLife, tested) =>
    `Node.js ${version} (${platform})${endOfLife === undefined ? '' : `, mantido até ${endOfLife}`}${tested === undefined ? '' : `; o papo é testado no Node ${tested.join(', ')}`}`,
  nodeTooOld: (version, minimum, endOfLife) =>
    `Node.js ${version} é mais antigo do que o papo suporta (${minimum} ou mais novo)${endOfLife === undefined ? '' : ` e já passou do fim da vida (${endOfLife}): sem correções de segurança`}`,
  nodeEndOfLife: (version, endOfLife) =>
    `Node.js ${version} já passou do fim da vida (${endOfLife}): sem correções de segurança`,
  nodeFix: (tested) =>
    `instale um Node mantido (${tested.join(', ')}) do nodejs.org ou do seu gerenciador de versões (nvm install ${tested[tested.length - 1]}) e rode npm install -g papo de novo`,
  profileOk: (profile, name, roomId) => `${profile}: você é "${name}" na sala ${roomId}`,
  profileFix: (suffix) =>
    `papo new --name SEU-NOME${suffix}, ou papo join --name SEU-NOME${suffix} com um convite`,
  signalOk: (url, ms) => `${url} respondeu em ${ms} ms`,
  signalUnreachable: (url, detail) => `não foi possível alcançar ${url} (${detail})`,
  signalLocalFix: (suffix) =>
    `o servidor de sinalização desta sala roda dentro do papo mcp nesta máquina: abra o seu agente (ou rode papo signal) e rode papo doctor${suffix} de novo`,
  signalFix:
    'o servidor de sinalização está no ar e acessível desta rede? Confira a URL de sinalização da sala (o convite, ou PAPO_SIGNAL)',
  signalRefused: (url, detail) => `${url} recusou o papo (${detail})`,
  signalRefusedFix:
    'tente de novo daqui a pouco; se continuar, pergunte ao operador do servidor sobre os limites dele',
  signalNotPapo: (url, detail) => `${url} não responde como um servidor de sinalização do papo (${detail})`,
  signalNotPapoFix:
    'confira a URL de sinalização da sala (o convite, ou PAPO_SIGNAL) e o proxy na frente dele',
  signalPinMismatch: (url) =>
    `${url} apresenta um certificado cuja chave não é a que o convite da sala fixa (a chave dele mudou, ou outra máquina responde ali); o papo não mandou nada a ele`,
  signalPinMismatchFix:
    'pergunte a quem opera o servidor se a chave mudou; se mudou, quem criou a sala roda a nova linha papo new que o papo signal --public imprime, e todos entram com o convite novo',
  signalCertificate: (url, problem) => messages('pt').certificateProblem(url, problem),
  signalCertificateFix: (problem) => lowerFirst(messages('pt').certificateFix(problem)),
  networkNotChecked:
    'STUN, NAT e TURN não verificados: os servidores ICE desta sala vêm com a resposta do servidor de sinalização, e não houve nenhuma',
  tokenAccepted: 'aceito',
  tokenNotNeeded: 'nenhum enviado, nenhum exigido',
  tokenRefused: 'o servidor de sinalização recusou o token que o papo mandou',
  tokenRequired: 'o servidor de sinalização exige um token, e nenhum está definido para ele',
  tokenRefusedFix: (origin) =>
    `confira o token de ${origin} em PAPO_SIGNAL_TOKEN (precisa ser o PAPO_SIGNAL_TOKEN do próprio servidor)`,
  tokenSetFix: (origin) =>
    `defina PAPO_SIGNAL_TOKEN=${origin}=<token> (peça ao operador do servidor de sinalização)`,
  tokenTlsFix:
    'o papo nunca manda um token por ws:// a outra máquina: ponha TLS na frente do servidor e use wss://',
  tokenInvalidFix: 'corrija PAPO_SIGNAL_TOKEN como a linha diz (docs/signal-server.md)',
  scopeLoopback: (url) =>
    `${url} fica só nesta máquina: perfis desta máquina se encontram ali, colegas em outras máquinas não`,
  scopeFix: (suffix) =>
    `para colegas em outras máquinas: papo new --force --name SEU-NOME --signal wss://seu-servidor-de-sinalizacao${suffix} (docs/signal-server.md)`,
  scopeShared: 'a URL de sinalização não fica só nesta máquina',
  withCredentials: ' (com credenciais)',
  iceServers: (source, list) =>
    `${({ env: 'de PAPO_ICE_SERVERS', welcome: 'do servidor de sinalização', default: 'o padrão do papo' } as Record<string, string>)[source] ?? source}: ${list}`,
  iceFix: 'corrija PAPO_ICE_SERVERS: um array JSON de {"urls", "username", "credential"}',
  policy: (p) =>
    p === 'relay'
      ? 'relay: só caminhos retransmitidos (PAPO_ICE_POLICY=relay)'
      : 'all: caminhos diretos e retransmitidos',
  policyInvalid: (value) => `PAPO_ICE_POLICY=${JSON.stringify(value.slice(0, 40))} não é "relay" nem "all"`,
  policyFix: 'defina PAPO_ICE_POLICY=relay, ou remova a variável',
  stunNone: 'nenhum servidor STUN a consultar',
  stunOk: (mapped, url, ms, answered, asked) =>
    `visto como ${mapped} (${url}, ${ms} ms; ${answered} de ${asked} responderam)`,
  stunNoAnswer: (detail) => `nenhum servidor STUN respondeu (${detail})`,
  stunNotNeeded: (detail) =>
    `nenhum servidor STUN respondeu (${detail}); não é preciso entre perfis desta máquina`,
  stunFix:
    'o UDP pode estar bloqueado aqui: os links então precisam de TURN por TCP ou TLS (PAPO_ICE_SERVERS para o seu próprio TURN, ou PAPO_TURN_URLS e PAPO_TURN_SECRET no servidor de sinalização)',
  natSame: (n) => `o mesmo mapeamento para ${n} destinos: não é um NAT simétrico`,
  natVaries: (pairs) => `o mapeamento muda conforme o destino (${pairs}): um NAT simétrico`,
  natFix:
    'links diretos atrás de um NAT simétrico raramente funcionam: garanta um servidor TURN que funcione (PAPO_ICE_SERVERS para o seu próprio TURN, ou PAPO_TURN_URLS e PAPO_TURN_SECRET no servidor de sinalização)',
  natUnknown: 'menos de dois destinos STUN responderam: não dá para saber se o NAT é simétrico',
  turnNone: 'nenhum servidor TURN configurado',
  turnNotHandedOut: (url) =>
    `o servidor de sinalização ${url} não entrega nenhum servidor TURN: um colega atrás de um NAT simétrico, ou onde o UDP é bloqueado, não consegue se ligar a você`,
  turnNotHandedOutFix:
    'no servidor: instale o coturn (o papo signal --public o inicia sozinho), ou defina lá PAPO_TURN_URLS e PAPO_TURN_SECRET; ou aqui: PAPO_ICE_SERVERS com um servidor TURN seu',
  turnAllocated: (url, relayed, ms) => `${url}: alocou ${relayed} em ${ms} ms, devolvido`,
  turnNotReleased: (url, relayed, ms) =>
    `${url}: alocou ${relayed} em ${ms} ms, mas o servidor não confirmou a devolução`,
  turnNotReleasedFix: 'nada a fazer agora: o servidor TURN a descarta sozinho em até 10 minutos',
  turnRefused: (url, code, detail) => `${url}: alocação recusada (${code}${detail ? ` ${detail}` : ''})`,
  turnRefusedFix: (code, source) => {
    if (code === 401)
      return source === 'env'
        ? 'confira o username e a credential deste servidor em PAPO_ICE_SERVERS'
        : 'o PAPO_TURN_SECRET do servidor de sinalização precisa ser igual ao static-auth-secret do servidor TURN (pergunte ao operador)';
    if (code === 486)
      return 'a cota de alocações deste usuário acabou (user-quota do coturn): feche outros processos do papo, ou aumente a cota';
    if (code === 403)
      return 'o servidor TURN proíbe esta alocação (regras dele): pergunte ao operador do servidor TURN';
    return 'pergunte ao operador do servidor TURN o que esta recusa significa';
  },
  turnUnsupported: (url, detail) => `${url}: o papo não consegue usar esta URL (${detail})`,
  turnUnsupportedFix: 'dê uma URL turn: ou turns: com username e credential',
  turnUnreachable: (url, detail) => `${url}: nenhuma alocação (${detail})`,
  turnUnreachableFix: (transport) =>
    `esta rede pode bloquear TURN por ${transport.toUpperCase()} até esse servidor: ele está no ar? Uma URL turns: na porta 443 passa pela maioria dos firewalls`,
  turnUntrusted: (url, detail) => `${url}: o certificado TLS não é confiável (${detail})`,
  turnUntrustedFix:
    'corrija o certificado do servidor TURN, ou confie na CA dele com NODE_EXTRA_CA_CERTS=/caminho/ca.pem para o papo',
  turnPortsClosedFix: (host, ports) =>
    `não é a sua rede: ${host} responde como servidor de sinalização, mas o servidor TURN dele não responde nem por UDP nem por TCP, então as portas TURN dele estão fechadas para você. Quem opera o servidor abre ${messages('pt').portList(ports)} para aquela máquina (as linhas que o papo signal --public imprimiu) e confere se o coturn está rodando`,
  udpBlockedNote: (via) =>
    `nada a fazer: o UDP parece bloqueado nesta rede (ou fechado no servidor), então os links passam por TURN via TCP (${via} funciona) e a sala funciona`,
  pathOk: (via) =>
    ({
      relay: 'a sala pode funcionar: um caminho retransmitido (TURN) funciona daqui',
      'this-machine':
        'a sala pode funcionar: os membros estão nesta máquina, e se encontram sem STUN nem TURN',
      direct:
        'a sala pode funcionar: um caminho direto parece possível (o STUN respondeu; o NAT não é simétrico)',
      'direct-nat-unknown':
        'a sala pode funcionar: um caminho direto parece possível (o STUN respondeu; tipo de NAT desconhecido)',
    })[via],
  pathUnsure:
    'um caminho direto pode funcionar (o STUN respondeu), mas o papo não sabe dizer se este NAT é simétrico, e não há TURN para recorrer',
  pathFail: (why) =>
    ({
      'relay-without-turn':
        'sem caminho: PAPO_ICE_POLICY=relay só permite caminhos retransmitidos, e nenhuma alocação TURN funcionou',
      'symmetric-without-turn': 'sem caminho: atrás de um NAT simétrico, e nenhuma alocação TURN funcionou',
      'no-stun-without-turn':
        'sem caminho: nenhum servidor STUN respondeu, e nenhuma alocação TURN funcionou',
    })[why],
  pathFix: (why) =>
    why === 'relay-without-turn'
      ? 'configure um servidor TURN (PAPO_ICE_SERVERS para o seu próprio TURN, ou PAPO_TURN_URLS e PAPO_TURN_SECRET no servidor de sinalização), ou remova PAPO_ICE_POLICY'
      : 'configure um servidor TURN que funcione daqui (PAPO_ICE_SERVERS para o seu próprio TURN, ou PAPO_TURN_URLS e PAPO_TURN_SECRET no servidor de sinalização)',
  clientRegistered: (detail) => `o papo está registrado${detail ? ` (${detail})` : ''}`,
  clientMissing: 'o papo não está registrado para este projeto',
  clientUnknown: (id) => `não foi possível saber se o papo está registrado (${id} não respondeu a tempo)`,
  clientFix: (id, suffix) => `papo install --client ${id}${suffix}`,
  channelsOk: 'nenhuma variável desliga os canais do Claude Code',
  channelsOff: (names) =>
    `${names.join(', ')} ${names.length === 1 ? 'definida' : 'definidas'}: o Claude Code desliga os canais (as mensagens de sessão, do 2.1.332 em diante, ainda levam as do papo ao seu agente)`,
  channelsFix: (names) => `remova ${names.join(' ')} de onde o Claude Code é iniciado`,
  sessionOk:
    'nenhuma variável desliga as mensagens de sessão do Claude Code: do 2.1.332 em diante elas levam as mensagens do papo ao seu agente, sem flag',
  sessionOff: (value) =>
    `CLAUDE_CODE_HARBOR_KITE=${value} definida: o Claude Code não dá ao papo as mensagens de sessão, e as mensagens só chegam ao seu agente pelos canais ou quando ele chama wait ou inbox`,
  sessionFix: 'remova CLAUDE_CODE_HARBOR_KITE de onde o Claude Code é iniciado',
  roomOk: (online) =>
    online.length === 0
      ? 'o papo mcp do seu agente está na sala; ninguém mais está online para ele agora'
      : `o papo mcp do seu agente está na sala; online para ele: ${online.join(', ')}`,
  pushFix:
    'abra o seu agente do jeito de sempre, na sessão interativa (sem --bare, sem claude -p, qwen -p ou codex exec): o Claude Code 2.1.332 ou mais novo, o Qwen Code 0.24 ou mais novo e o Codex CLI 0.171 ou mais novo trazem as mensagens do papo sem flag; nos outros o agente as lê quando chama wait',
  roomFix:
    'essa é a visão do próprio papo mcp do seu agente, como o papo status a mostra: ele pode rodar com outro ambiente que este terminal (PAPO_ICE_POLICY, PAPO_ICE_SERVERS, PAPO_SIGNAL_TOKEN); mude-o onde o seu agente é iniciado e reinicie a sessão',
};

export function doctorTexts(lang: Lang): DoctorTexts {
  return lang === 'pt' ? pt : en;
}

/** A sentence of the CLI's (which starts with a capital) as a doctor fix, which does not. */
function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
