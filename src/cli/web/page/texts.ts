// Every word papo web's page shows, in English and Portuguese (Brazil), like the CLI's
// (src/cli/i18n.ts): the server says which (the person's LANG, LC_ALL, LC_MESSAGES), in the
// state it sends. The outcome of a say or a decision comes from the server in the CLI's own words.

export type Lang = 'en' | 'pt';

const en = {
  title: 'papo web',
  reviewTitle: 'Held for your review',
  conversationTitle: 'Conversation',
  sayTitle: 'Say something',
  toLabel: 'To',
  everyone: 'everyone (the whole room)',
  sendHint: 'Ctrl+Enter (⌘+Enter) sends',
  messageLabel: 'Message',
  send: 'Send',
  cancelReply: 'cancel reply',
  roomTitle: 'Room',
  roomCheck: 'Check who is online',
  profileLabel: 'Profile',
  where: (self: string, room: string, profile: string) =>
    `you are ${self} in room ${room} (profile ${profile})`,
  human: 'person',
  agent: 'agent',
  room: 'room',
  replyTo: (id: string) => `reply to ${id}`,
  reply: 'Reply',
  replyingTo: (from: string, id: string) => `Replying to ${from} (msg ${id})`,
  sent: 'sent',
  received: 'received',
  heldForReview: 'held for your review',
  held: 'held',
  unshowable: 'this message could not be shown',
  deliveredTo: (names: string) => `delivered to ${names}`,
  approved: 'you approved it: your agent has it',
  rejected: (reason?: string) =>
    `you rejected it: your agent never sees it${reason ? `; reason: ${reason}` : ''}`,
  reviewOn: (n: number) =>
    `Review is on: ${n} held. Your agent sees a held message only once you approve it.`,
  reviewOff: (n: number) => `Review is off; ${n} still held.`,
  approve: 'Approve',
  reject: 'Reject',
  reasonLabel: 'Reason (told to the sender)',
  approving: 'approving…',
  rejecting: 'rejecting…',
  sending: 'sending…',
  looking: 'looking for the room’s members…',
  nobodyFound: 'nobody found in the room',
  online: 'online',
  offline: 'offline',
  offlineNoLink: 'offline: on the signal server, no link yet',
  offlineSignalDown: 'offline as far as papo can tell: the signal server cannot be reached',
  notAnswering: (seconds: number) => `not answering for ${seconds}s`,
  noAgentRunning:
    'your agent’s papo mcp is not running: these are the members the profile remembers. “Check who is online” looks at the room now.',
  direct: 'direct',
  relayed: 'relayed',
  yourAgent: 'your agent',
  profileOption: (profile: string, self: string, room: string) => `${profile} (${self}, room ${room})`,
  pageTitle: (self: string, room: string) => `papo — ${self} in room ${room}`,
  newBelow: (n: number) => (n === 1 ? '1 new message ↓' : `${n} new messages ↓`),
  unreachable:
    'papo web is not reachable — reconnecting… (if it stopped, start it again in a terminal: papo web)',
  restarted:
    'papo web was started again, and this tab’s session ended with the old one: open the address papo web printed in your terminal (a new one at each start).',
  notSentDown:
    'not sent: papo web is not reachable. The page reconnects by itself; send it again once it is back.',
  notSentRestarted: 'not sent: papo web was started again. Open the address it printed in your terminal.',
  badAnswer: (status: number) =>
    status === 0 ? 'not done: papo web’s answer could not be read' : `not done: papo web answered ${status}`,
  signedOut:
    'This tab is not signed in to this papo web: open the address papo web printed in your terminal (a new one at each start).',
};

export type Texts = typeof en;

const pt: Texts = {
  title: 'papo web',
  reviewTitle: 'Retidas para a sua revisão',
  conversationTitle: 'Conversa',
  sayTitle: 'Diga algo',
  toLabel: 'Para',
  everyone: 'todos (a sala toda)',
  sendHint: 'Ctrl+Enter (⌘+Enter) envia',
  messageLabel: 'Mensagem',
  send: 'Enviar',
  cancelReply: 'cancelar a resposta',
  roomTitle: 'Sala',
  roomCheck: 'Ver quem está online',
  profileLabel: 'Perfil',
  where: (self, room, profile) => `você é ${self} na sala ${room} (perfil ${profile})`,
  human: 'pessoa',
  agent: 'agente',
  room: 'sala',
  replyTo: (id) => `resposta a ${id}`,
  reply: 'Responder',
  replyingTo: (from, id) => `Respondendo a ${from} (msg ${id})`,
  sent: 'enviada',
  received: 'recebida',
  heldForReview: 'retida para a sua revisão',
  held: 'retida',
  unshowable: 'esta mensagem não pôde ser mostrada',
  deliveredTo: (names) => `entregue a ${names}`,
  approved: 'você a aprovou: o seu agente a tem',
  rejected: (reason) => `você a rejeitou: o seu agente nunca a vê${reason ? `; motivo: ${reason}` : ''}`,
  reviewOn: (n) =>
    `A revisão está ligada: ${n} retida(s). O seu agente só vê uma mensagem retida depois que você a aprova.`,
  reviewOff: (n) => `A revisão está desligada; ${n} ainda retida(s).`,
  approve: 'Aprovar',
  reject: 'Rejeitar',
  reasonLabel: 'Motivo (dito a quem enviou)',
  approving: 'aprovando…',
  rejecting: 'rejeitando…',
  sending: 'enviando…',
  looking: 'procurando os membros da sala…',
  nobodyFound: 'ninguém encontrado na sala',
  online: 'online',
  offline: 'offline',
  offlineNoLink: 'offline: no servidor de sinalização, sem ligação ainda',
  offlineSignalDown: 'offline até onde o papo sabe: o servidor de sinalização não responde',
  notAnswering: (seconds) => `sem resposta há ${seconds}s`,
  noAgentRunning:
    'o papo mcp do seu agente não está rodando: estes são os membros que o perfil lembra. “Ver quem está online” olha a sala agora.',
  direct: 'direto',
  relayed: 'por relay',
  yourAgent: 'o seu agente',
  profileOption: (profile, self, room) => `${profile} (${self}, sala ${room})`,
  pageTitle: (self, room) => `papo — ${self} na sala ${room}`,
  newBelow: (n) => (n === 1 ? '1 mensagem nova ↓' : `${n} mensagens novas ↓`),
  unreachable:
    'o papo web não responde — reconectando… (se ele parou, inicie-o de novo num terminal: papo web)',
  restarted:
    'o papo web foi iniciado de novo, e a sessão desta aba acabou com o anterior: abra o endereço que o papo web mostrou no seu terminal (um novo a cada início).',
  notSentDown:
    'não enviada: o papo web não responde. A página reconecta sozinha; envie de novo quando ele voltar.',
  notSentRestarted:
    'não enviada: o papo web foi iniciado de novo. Abra o endereço que ele mostrou no seu terminal.',
  badAnswer: (status) =>
    status === 0
      ? 'não feito: a resposta do papo web não pôde ser lida'
      : `não feito: o papo web respondeu ${status}`,
  signedOut:
    'Esta aba não está conectada a este papo web: abra o endereço que o papo web mostrou no seu terminal (um novo a cada início).',
};

export function textsFor(lang: Lang): Texts {
  return lang === 'pt' ? pt : en;
}

/** The words of the static page (index.html's elements with data-t), in `t`'s language. */
export function translatePage(t: Texts, lang: Lang): void {
  document.documentElement.lang = lang === 'pt' ? 'pt-BR' : 'en';
  for (const node of document.querySelectorAll<HTMLElement>('[data-t]')) {
    const value = t[node.dataset.t as keyof Texts];
    if (typeof value === 'string') node.textContent = value;
  }
}
