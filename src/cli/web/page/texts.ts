// Every word papo web's page shows, in English and Portuguese (Brazil), like the CLI's
// (src/cli/i18n.ts): the server says which (the person's LANG, LC_ALL, LC_MESSAGES), in the
// state it sends. The outcome of a say or a decision comes from the server in the CLI's own words.

export type Lang = 'en' | 'pt';

const en = {
  title: 'papo web',
  reviewTitle: 'Held for your review',
  conversationTitle: 'Conversation',
  sayTitle: 'Say something',
  toLabel: "To (optional: a member's name; empty is the whole room)",
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
  direct: 'direct',
  relayed: 'relayed',
  yourAgent: 'your agent',
  profileOption: (profile: string, self: string, room: string) => `${profile} (${self}, room ${room})`,
  signedOut:
    'This tab is not signed in to this papo web: open the address papo web printed in your terminal (a new one at each start).',
};

export type Texts = typeof en;

const pt: Texts = {
  title: 'papo web',
  reviewTitle: 'Retidas para a sua revisão',
  conversationTitle: 'Conversa',
  sayTitle: 'Diga algo',
  toLabel: 'Para (opcional: o nome de um membro; vazio é a sala toda)',
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
  direct: 'direto',
  relayed: 'por relay',
  yourAgent: 'o seu agente',
  profileOption: (profile, self, room) => `${profile} (${self}, sala ${room})`,
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
