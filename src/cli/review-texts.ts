// papo review's texts in English and Brazilian Portuguese (ADR 0081). The texts of held messages
// themselves are room text: the command shows them through inertText, never here.
import type { BrokenReason } from '../client/store/review.js';
import type { Lang } from './i18n.js';

/** An allow rule as `papo review` shows it (ADR 0095). */
export interface AllowedView {
  name: string;
  /** The agent's key the rule lets through, short; absent: none. */
  agent?: string;
  /** The person's key the rule lets through, short; absent: none. */
  human?: string;
  /** Another key holds the name now (papo forget): its messages wait for the person. */
  moved: boolean;
}

export interface ReviewTexts {
  help: string;
  actionHelp: string;
  argsHelp: string;
  allHelp: string;
  reasonHelp: string;
  peopleHelp: string;
  removeHelp: string;
  watchHelp: string;
  state(on: boolean): string;
  broken(why: BrokenReason): string;
  allowed(members: readonly AllowedView[], people: readonly string[]): string;
  alwaysHeld(patterns: readonly string[]): string;
  noneHeld: string;
  heldHeader(count: number): string;
  /** One held message's header line (the text follows, indented). */
  heldLine(m: {
    id: string;
    from: string;
    kind: string;
    when: string;
    size: string;
    replyTo?: string;
  }): string;
  turnedOn(held: number): string;
  /** After turnedOn: messages already unread when review went on (they are not held). */
  unreadBefore(count: number): string;
  unreadMore(count: number): string;
  turnedOff(held: number): string;
  alreadyOn: string;
  alreadyOff: string;
  approved(id: string, from: string, agentRuns: boolean): string;
  rejected(id: string, from: string): string;
  keptFull(id: string): string;
  leftForAgent: string;
  unknownId(id: string): string;
  ambiguousId(id: string, matches: readonly string[]): string;
  needIds(action: string): string;
  allWithIds: string;
  noReasonWithApprove: string;
  reasonTooLong(max: number): string;
  telling(name: string): string;
  tellFailed(name: string, why: string): string;
  unknownAction(action: string): string;
  allowNeedsName: string;
  allowAdded(name: string, rule: AllowedView): string;
  /** papo review allow NAME for a name the room never showed this member. */
  notSeen(name: string): string;
  peopleAdded(names: readonly string[]): string;
  noPeopleKnown: string;
  allowRemoved(who: string): string;
  allowMissing(who: string): string;
  holdNeedsPattern: string;
  holdAdded(pattern: string): string;
  holdRemoved(pattern: string): string;
  holdMissing(pattern: string): string;
  badPattern(pattern: string, tooLong: boolean): string;
  reasonNotTold: string;
  tooManyRules(max: number): string;
  people: string;
  watchStart: string;
  watchWaiting: string;
  watchPrompt: string;
  watchSkipped(id: string): string;
  watchBye: string;
  /** papo status: the person's own review, when on or when something is held. */
  statusLine(on: boolean, held: number): string;
}

const en: ReviewTexts = {
  help: 'see what other members write before your agent does: turn review on or off, list, approve or reject held messages, set rules',
  actionHelp: 'on | off | approve | reject | allow | hold (none: show the state and the held messages)',
  argsHelp:
    'message ids (approve, reject: the first characters are enough), a member name (allow) or a pattern (hold)',
  allHelp: 'approve every held message',
  reasonHelp: 'reject: tell the sender why (they get it as a message from you)',
  peopleHelp:
    'allow: let through the persons (papo say) of the members papo knows now; one who joins later waits for you',
  removeHelp: 'allow, hold: take the rule away',
  watchHelp: 'stay open and decide each held message with one key',
  state: (on) =>
    on
      ? "Review is on: other members' messages wait for you before your agent sees them."
      : 'Review is off: messages reach your agent at once (papo review on to change it).',
  broken: (why) =>
    `review.json ${
      {
        unreadable: 'cannot be read',
        link: 'is a link, which papo does not follow',
        not_json: 'is not valid JSON',
        not_settings: 'does not hold what papo expects',
      }[why]
    }: every message is held until it is fixed (papo review on, or off, writes it again).`,
  allowed: (members, people) => {
    const who = [
      ...members.map((m) => `${m.name} (${enBound(m)})`),
      ...(people.length > 0 ? [`the persons of ${people.join(', ')} (papo say)`] : []),
    ];
    return `Always let through: ${who.length === 0 ? 'nobody' : who.join('; ')}.`;
  },
  alwaysHeld: (patterns) =>
    `Always held (text holding): ${patterns.length === 0 ? 'nothing' : patterns.map((p) => JSON.stringify(p)).join(', ')}.`,
  noneHeld: 'No message is held.',
  heldHeader: (count) =>
    `${count === 1 ? '1 message is held' : `${count} messages are held`} (papo review approve ID | reject ID [--reason TEXT]):`,
  heldLine: (m) =>
    `${m.id}  from ${m.from} (${m.kind}), ${m.when}, ${m.size}${m.replyTo ? `, reply to ${m.replyTo}` : ''}`,
  turnedOn: (held) =>
    `Review is on: from now on other members' messages wait for you (papo review) before your agent sees them. Members are told that you review.${held > 0 ? ` ${held} held.` : ''}`,
  unreadBefore: (count) =>
    `${count === 1 ? '1 message that came before is' : `${count} messages that came before are`} unread in your agent's inbox and ${count === 1 ? 'is' : 'are'} not held: your agent may have been shown ${count === 1 ? 'it' : 'them'} already, and reads ${count === 1 ? 'it' : 'them'} as ${count === 1 ? 'it is' : 'they are'}. papo log shows the text:`,
  unreadMore: (count) => `  … and ${count} more (papo log).`,
  turnedOff: (held) =>
    held === 0
      ? 'Review is off: new messages reach your agent at once.'
      : `Review is off: new messages reach your agent at once. ${held === 1 ? '1 message is' : `${held} messages are`} still held: approve or reject ${held === 1 ? 'it' : 'them'} (papo review).`,
  alreadyOn: 'Review was on already.',
  alreadyOff: 'Review was off already.',
  approved: (id, from, agentRuns) =>
    `Approved ${id} from ${from}: ${agentRuns ? 'your agent has it now' : 'your agent gets it when papo mcp starts'}.`,
  rejected: (id, from) => `Rejected ${id} from ${from}: your agent never sees it (papo log keeps it).`,
  keptFull: (id) =>
    `${id} stays held: your agent's inbox is full; approve it again once your agent has read.`,
  leftForAgent:
    'papo mcp holds this profile but did not take the decision within 5s; it applies it as soon as it looks (at the latest when it starts again)',
  unknownId: (id) => `no held message ${JSON.stringify(id)} (papo review lists them); nothing was decided`,
  ambiguousId: (id, matches) =>
    `${JSON.stringify(id)} could be ${matches.join(' or ')}: give more characters; nothing was decided`,
  needIds: (action) => `papo review ${action} needs message ids (papo review lists them)`,
  allWithIds: 'give message ids or --all, not both',
  noReasonWithApprove: '--reason goes with reject',
  reasonTooLong: (max) => `the reason is longer than ${max} characters`,
  telling: (name) => `telling ${name} why…`,
  tellFailed: (name, why) => `the rejection stands, but ${name} could not be told: ${why}`,
  unknownAction: (action) =>
    `papo review has no ${JSON.stringify(action)}: use on, off, approve, reject, allow or hold (papo review --help)`,
  allowNeedsName: 'papo review allow needs a member name, or --people',
  allowAdded: (name, rule) =>
    `Messages from ${name} now reach your agent without waiting for you (unless they hold a hold pattern): ${enBound(rule)}. Another key that claims the name later waits for you.`,
  notSeen: (name) =>
    `papo has not seen ${name} in this room yet, so there is no key to bind the rule to; nothing changed. Run it again once ${name} has been online (papo status lists the members).`,
  peopleAdded: (names) =>
    `Messages from the persons of ${names.join(', ')} (papo say) now reach your agent without waiting for you (unless they hold a hold pattern). Only theirs: a person who joins later waits for you (papo review allow --people again adds them).`,
  noPeopleKnown:
    "papo knows no other member's person in this room yet, so there is nobody to allow; nothing changed. Run it again once they have been online (papo status lists the members).",
  allowRemoved: (who) => `Messages from ${who} wait for you again.`,
  allowMissing: (who) => `${who} was not allowed; nothing changed.`,
  holdNeedsPattern:
    'papo review hold needs a pattern: text to look for, any letter case, * for any text in between',
  holdAdded: (pattern) =>
    `Messages whose text holds ${JSON.stringify(pattern)} are always held while review is on.`,
  holdRemoved: (pattern) => `${JSON.stringify(pattern)} no longer holds messages.`,
  holdMissing: (pattern) => `${JSON.stringify(pattern)} was not a hold pattern; nothing changed.`,
  badPattern: (pattern, tooLong) =>
    tooLong
      ? `${JSON.stringify(pattern)} is longer than 200 characters`
      : `${JSON.stringify(pattern)} has no text to look for (* stands for any text)`,
  reasonNotTold:
    'The reason is not told: the decision waits for papo mcp; once it is applied, tell it with papo say --to NAME.',
  tooManyRules: (max) => `at most ${max} rules of each kind`,
  people: 'the persons you allowed (papo say)',
  watchStart: 'Reviewing as messages arrive. Keys: a approve, r reject, s skip, q quit.',
  watchWaiting: 'Waiting for messages to review… (q to quit)',
  watchPrompt: '[a]pprove  [r]eject  [s]kip  [q]uit ',
  watchSkipped: (id) => `Skipped ${id}: it stays held.`,
  watchBye: 'Stopped reviewing; what is held stays held.',
  statusLine: (on, held) =>
    `Review: ${on ? 'on' : 'off'}; held for you: ${held}${held > 0 ? ' (papo review)' : ''}.`,
};

const pt: ReviewTexts = {
  help: 'veja o que os outros membros escrevem antes do seu agente: ligue ou desligue a revisão, liste, aprove ou rejeite mensagens retidas, defina regras',
  actionHelp: 'on | off | approve | reject | allow | hold (nada: mostra o estado e as mensagens retidas)',
  argsHelp:
    'ids de mensagens (approve, reject: os primeiros caracteres bastam), um nome de membro (allow) ou um padrão (hold)',
  allHelp: 'aprova todas as mensagens retidas',
  reasonHelp: 'reject: diz o motivo a quem enviou (chega como mensagem sua)',
  peopleHelp:
    'allow: deixa passar as pessoas (papo say) dos membros que o papo conhece agora; quem entrar depois espera por você',
  removeHelp: 'allow, hold: tira a regra',
  watchHelp: 'fica aberto e decide cada mensagem retida com uma tecla',
  state: (on) =>
    on
      ? 'A revisão está ligada: as mensagens dos outros membros esperam por você antes de o seu agente vê-las.'
      : 'A revisão está desligada: as mensagens chegam ao seu agente na hora (papo review on para mudar).',
  broken: (why) =>
    `o review.json ${
      {
        unreadable: 'não pode ser lido',
        link: 'é um link, que o papo não segue',
        not_json: 'não é um JSON válido',
        not_settings: 'não tem o que o papo espera',
      }[why]
    }: toda mensagem fica retida até isso ser corrigido (papo review on, ou off, o escreve de novo).`,
  allowed: (members, people) => {
    const who = [
      ...members.map((m) => `${m.name} (${ptBound(m)})`),
      ...(people.length > 0 ? [`as pessoas de ${people.join(', ')} (papo say)`] : []),
    ];
    return `Sempre passam: ${who.length === 0 ? 'ninguém' : who.join('; ')}.`;
  },
  alwaysHeld: (patterns) =>
    `Sempre retidas (texto que contém): ${patterns.length === 0 ? 'nada' : patterns.map((p) => JSON.stringify(p)).join(', ')}.`,
  noneHeld: 'Nenhuma mensagem retida.',
  heldHeader: (count) =>
    `${count === 1 ? '1 mensagem retida' : `${count} mensagens retidas`} (papo review approve ID | reject ID [--reason TEXTO]):`,
  heldLine: (m) =>
    `${m.id}  de ${m.from} (${m.kind}), ${m.when}, ${m.size}${m.replyTo ? `, resposta a ${m.replyTo}` : ''}`,
  turnedOn: (held) =>
    `Revisão ligada: a partir de agora as mensagens dos outros membros esperam por você (papo review) antes de o seu agente vê-las. Os membros ficam sabendo que você revisa.${held > 0 ? ` ${held} retidas.` : ''}`,
  unreadBefore: (count) =>
    `${count === 1 ? '1 mensagem que chegou antes está não lida' : `${count} mensagens que chegaram antes estão não lidas`} na caixa de entrada do seu agente e ${count === 1 ? 'não está retida' : 'não estão retidas'}: o seu agente pode já ${count === 1 ? 'tê-la' : 'tê-las'} recebido, e ${count === 1 ? 'a' : 'as'} lê como ${count === 1 ? 'está' : 'estão'}. O papo log mostra o texto:`,
  unreadMore: (count) => `  … e mais ${count} (papo log).`,
  turnedOff: (held) =>
    held === 0
      ? 'Revisão desligada: as novas mensagens chegam ao seu agente na hora.'
      : `Revisão desligada: as novas mensagens chegam ao seu agente na hora. ${held === 1 ? '1 mensagem continua retida' : `${held} mensagens continuam retidas`}: aprove ou rejeite (papo review).`,
  alreadyOn: 'A revisão já estava ligada.',
  alreadyOff: 'A revisão já estava desligada.',
  approved: (id, from, agentRuns) =>
    `Aprovada ${id} de ${from}: ${agentRuns ? 'o seu agente já a tem' : 'o seu agente a recebe quando o papo mcp iniciar'}.`,
  rejected: (id, from) => `Rejeitada ${id} de ${from}: o seu agente nunca a vê (o papo log a guarda).`,
  keptFull: (id) =>
    `${id} continua retida: a caixa de entrada do seu agente está cheia; aprove de novo quando o agente tiver lido.`,
  leftForAgent:
    'o papo mcp tem este perfil mas não pegou a decisão em 5s; ele a aplica assim que olhar (no máximo quando iniciar de novo)',
  unknownId: (id) =>
    `nenhuma mensagem retida ${JSON.stringify(id)} (papo review as lista); nada foi decidido`,
  ambiguousId: (id, matches) =>
    `${JSON.stringify(id)} pode ser ${matches.join(' ou ')}: dê mais caracteres; nada foi decidido`,
  needIds: (action) => `papo review ${action} precisa de ids de mensagens (papo review as lista)`,
  allWithIds: 'dê ids de mensagens ou --all, não os dois',
  noReasonWithApprove: '--reason vai com reject',
  reasonTooLong: (max) => `o motivo tem mais de ${max} caracteres`,
  telling: (name) => `contando o motivo a ${name}…`,
  tellFailed: (name, why) => `a rejeição vale, mas não foi possível avisar ${name}: ${why}`,
  unknownAction: (action) =>
    `papo review não tem ${JSON.stringify(action)}: use on, off, approve, reject, allow ou hold (papo review --help)`,
  allowNeedsName: 'papo review allow precisa de um nome de membro, ou --people',
  allowAdded: (name, rule) =>
    `As mensagens de ${name} agora chegam ao seu agente sem esperar por você (a menos que contenham um padrão de retenção): ${ptBound(rule)}. Outra chave que reivindicar o nome depois espera por você.`,
  notSeen: (name) =>
    `o papo ainda não viu ${name} nesta sala, então não há chave a que ligar a regra; nada mudou. Rode de novo quando ${name} tiver estado online (o papo status lista os membros).`,
  peopleAdded: (names) =>
    `As mensagens das pessoas de ${names.join(', ')} (papo say) agora chegam ao seu agente sem esperar por você (a menos que contenham um padrão de retenção). Só as delas: uma pessoa que entrar depois espera por você (papo review allow --people de novo a inclui).`,
  noPeopleKnown:
    'o papo ainda não conhece a pessoa de nenhum outro membro nesta sala, então não há quem liberar; nada mudou. Rode de novo quando elas tiverem estado online (o papo status lista os membros).',
  allowRemoved: (who) => `As mensagens de ${who} voltam a esperar por você.`,
  allowMissing: (who) => `${who} não estava liberado; nada mudou.`,
  holdNeedsPattern:
    'papo review hold precisa de um padrão: o texto a procurar, maiúsculas ou minúsculas, * para qualquer texto no meio',
  holdAdded: (pattern) =>
    `As mensagens cujo texto contém ${JSON.stringify(pattern)} ficam sempre retidas enquanto a revisão estiver ligada.`,
  holdRemoved: (pattern) => `${JSON.stringify(pattern)} não retém mais mensagens.`,
  holdMissing: (pattern) => `${JSON.stringify(pattern)} não era um padrão de retenção; nada mudou.`,
  badPattern: (pattern, tooLong) =>
    tooLong
      ? `${JSON.stringify(pattern)} tem mais de 200 caracteres`
      : `${JSON.stringify(pattern)} não tem texto a procurar (* vale qualquer texto)`,
  reasonNotTold:
    'O motivo não foi dito: a decisão espera o papo mcp; quando ela for aplicada, diga-o com papo say --to NOME.',
  tooManyRules: (max) => `no máximo ${max} regras de cada tipo`,
  people: 'as pessoas que você liberou (papo say)',
  watchStart: 'Revisando conforme as mensagens chegam. Teclas: a aprova, r rejeita, s pula, q sai.',
  watchWaiting: 'Esperando mensagens para revisar… (q para sair)',
  watchPrompt: '[a]provar  [r]ejeitar  [s]pular  [q]sair ',
  watchSkipped: (id) => `${id} pulada: continua retida.`,
  watchBye: 'Revisão encerrada; o que está retido continua retido.',
  statusLine: (on, held) =>
    `Revisão: ${on ? 'ligada' : 'desligada'}; retidas para você: ${held}${held > 0 ? ' (papo review)' : ''}.`,
};

/** What an allow rule lets through, in English: the keys, or why it lets nothing through. */
function enBound(m: AllowedView): string {
  if (m.agent === undefined && m.human === undefined)
    return `bound to no key, so nothing passes: papo review allow ${m.name} again`;
  const keys = [
    ...(m.agent !== undefined ? [`its agent's key ${m.agent}`] : []),
    ...(m.human !== undefined ? [`its person's key ${m.human}`] : []),
  ].join(' and ');
  return m.moved ? `${keys}; another key holds the name now, and waits for you` : keys;
}

function ptBound(m: AllowedView): string {
  if (m.agent === undefined && m.human === undefined)
    return `ligada a nenhuma chave, então nada passa: papo review allow ${m.name} de novo`;
  const keys = [
    ...(m.agent !== undefined ? [`a chave do agente ${m.agent}`] : []),
    ...(m.human !== undefined ? [`a chave da pessoa ${m.human}`] : []),
  ].join(' e ');
  return m.moved ? `${keys}; outra chave tem o nome agora, e espera por você` : keys;
}

export function reviewTexts(lang: Lang): ReviewTexts {
  return lang === 'pt' ? pt : en;
}
