// papo web's page: the conversation as the log holds it, kept live by the server's events, a say
// box, the review queue and the room panel. No framework; every node is made with createElement
// and textContent (markdown.ts), never from markup. What the server sends is typed by ../api.ts,
// imported as types only (erased from app.js).
import type {
  ActionResult,
  EntriesEvent,
  EntryView,
  MembersReply,
  MessageView,
  ProfilesReply,
  ReviewState,
  SessionReply,
  StateReply,
} from '../api.js';
import { el, renderMarkdown } from './markdown.js';
import { type Texts, textsFor, translatePage } from './texts.js';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

let self = '';
/** The page's words, in the person's language once the state says it. */
let t: Texts = textsFor('en');
/** The profile this tab shows (`?profile=`; none: the one papo web was started with). */
const chosen = new URLSearchParams(location.search).get('profile');
const query = chosen === null ? '' : `?profile=${encodeURIComponent(chosen)}`;
/** Where the tab keeps its session (per tab, kept across a reload, never sent by the browser itself). */
const SESSION_KEY = 'papo-web-session';
let session: string | null = null;

/**
 * The tab's session: the address's `#k=` (the secret papo web printed, which no request carries) is
 * traded for one at once and leaves the address bar; else the one this tab kept.
 */
async function signIn(): Promise<string | null> {
  const k = new URLSearchParams(location.hash.slice(1)).get('k');
  if (k === null) return sessionStorage.getItem(SESSION_KEY);
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  const res = await fetch('/api/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ k }),
  });
  if (!res.ok) {
    sessionStorage.removeItem(SESSION_KEY);
    return null;
  }
  const { session: got } = (await res.json()) as SessionReply;
  sessionStorage.setItem(SESSION_KEY, got);
  return got;
}

/** A request of the page's, with its session; a refused session says so on the page. */
async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(path, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${session}` },
  });
  if (res.status === 401) signedOut();
  return res;
}

/** No session, or one this papo web did not hand out (it was started again): say what to do. */
function signedOut(): void {
  const words = textsFor(navigator.language.toLowerCase().startsWith('pt') ? 'pt' : 'en');
  const note = $('signed-out');
  note.textContent = words.signedOut;
  note.hidden = false;
}

interface Card {
  node: HTMLElement;
  state: HTMLElement;
}
const cards = new Map<string, Card>();
let replyTo: string | undefined;
/** Where new cards go while the first ones are built (then the conversation itself). */
let pending: DocumentFragment | undefined;

function when(ts: number): string {
  const d = new Date(ts);
  const p = (v: number) => String(v).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function focusCard(id: string): void {
  const card = cards.get(id)?.node;
  if (!card) return;
  card.scrollIntoView({ block: 'center' });
  card.classList.add('focus');
  card.focus();
  setTimeout(() => card.classList.remove('focus'), 1500);
}

/** A message's header and its rendered body (used by the conversation and the review queue). */
function messageNode(m: MessageView): { node: HTMLElement; state: HTMLElement } {
  const node = el('article', undefined, 'card');
  node.tabIndex = -1;
  node.dataset.id = m.id;
  const meta = el('div', undefined, 'meta');
  meta.append(el('span', m.from, 'who'), el('span', m.kind === 'human' ? t.human : t.agent, 'kind'));
  // Without `to`, a message is the whole room's (papo log names the reader instead).
  meta.append(el('span', `→ ${m.to ?? t.room}`, 'to'));
  const time = el('time', when(m.ts));
  time.dateTime = new Date(m.ts).toISOString();
  meta.append(time, el('span', `msg ${m.id}`, 'id'));
  if (m.replyTo !== undefined) {
    const target = m.replyTo;
    const link = el('button', t.replyTo(target), 'link reply-link');
    link.type = 'button';
    link.addEventListener('click', () => focusCard(target));
    meta.append(link);
  }
  const state = el('span', '', 'state');
  meta.append(state);
  const body = el('div', undefined, 'body');
  body.append(renderMarkdown(m.body));
  node.append(meta, body);
  return { node, state };
}

/**
 * What a message the page cannot show becomes (ADR 0119): one card that says so, with the message's
 * id when it has one, so that one card that throws while it is built (a time no Date holds, or
 * anything else) takes nothing else of the page with it.
 */
function unshowableNode(m: MessageView, err: unknown): Card {
  console.error(`papo web: a message could not be shown: ${String(err)}`);
  const node = el('article', undefined, 'card unshowable');
  node.tabIndex = -1;
  const id = typeof m.id === 'string' ? m.id : undefined;
  if (id !== undefined) node.dataset.id = id;
  const meta = el('div', undefined, 'meta');
  meta.append(el('span', t.unshowable, 'who'));
  if (id !== undefined) meta.append(el('span', `msg ${id}`, 'id'));
  const state = el('span', '', 'state');
  meta.append(state);
  node.append(meta);
  return { node, state };
}

/** A message's card, or its placeholder when it cannot be built. */
function cardOf(m: MessageView): { card: Card; shown: boolean } {
  try {
    return { card: messageNode(m), shown: true };
  } catch (err) {
    return { card: unshowableNode(m, err), shown: false };
  }
}

function addMessage(m: MessageView, out: boolean, held: boolean): void {
  if (cards.has(m.id)) return;
  const { card, shown } = cardOf(m);
  const { node, state } = card;
  node.id = `m-${m.id}`;
  node.classList.add(out ? 'out' : 'in');
  if (held) node.classList.add('held');
  if (shown) {
    const answer = el('button', t.reply, 'link');
    answer.type = 'button';
    answer.addEventListener('click', () => startReply(m));
    node.querySelector('.meta')?.append(answer);
  }
  state.textContent = out ? t.sent : held ? t.heldForReview : t.received;
  cards.set(m.id, { node, state });
  (pending ?? $('cards')).append(node);
  refresh(m.id);
}

/** Who confirmed each message, and the person's decision on each held one, as the log says. */
const deliveredBy = new Map<string, string[]>();
const decisions = new Map<string, { decision: 'approved' | 'rejected'; reason?: string }>();

/** A card's state from what the log said of it so far. */
function refresh(id: string): void {
  const card = cards.get(id);
  if (!card) return;
  const decided = decisions.get(id);
  const by = deliveredBy.get(id);
  if (decided) {
    card.node.classList.remove('held');
    card.state.textContent = decided.decision === 'approved' ? t.approved : t.rejected(decided.reason);
  } else if (by) card.state.textContent = t.deliveredTo(by.join(', '));
}

function apply(e: EntryView): void {
  if (e.ev === 'out' || e.ev === 'in') addMessage(e.msg, e.ev === 'out', e.ev === 'in' && e.held === true);
  else if (e.ev === 'delivered') {
    const by = deliveredBy.get(e.id) ?? [];
    if (!by.includes(e.by)) by.push(e.by);
    deliveredBy.set(e.id, by);
    refresh(e.id);
  } else if (e.ev === 'review') {
    decisions.set(e.id, { decision: e.decision, ...(e.reason !== undefined ? { reason: e.reason } : {}) });
    refresh(e.id);
  }
}

/** Cards built before the page shows; the older ones follow in chunks, above them. */
const FIRST_CARDS = 50;
const CHUNK = 100;

function build(part: EntryView[]): DocumentFragment {
  const fragment = document.createDocumentFragment();
  pending = fragment;
  for (const e of part) apply(e);
  pending = undefined;
  return fragment;
}

/** The log's entries as cards: the newest first, on screen at once, then the older ones. */
async function showLog(entries: EntryView[]): Promise<void> {
  const messages = entries.filter((e) => e.ev === 'out' || e.ev === 'in');
  for (const e of entries) if (e.ev !== 'out' && e.ev !== 'in') apply(e);
  const split = Math.max(0, messages.length - FIRST_CARDS);
  $('cards').append(build(messages.slice(split)));
  $('cards').lastElementChild?.scrollIntoView({ block: 'end' });
  // Marks bench/web.ts reads: the first screen's cards, and all of them.
  performance.mark('papo-first-cards');
  document.body.dataset.ready = 'true';
  for (let end = split; end > 0; end -= CHUNK) {
    await new Promise((r) => setTimeout(r, 0));
    $('cards').prepend(build(messages.slice(Math.max(0, end - CHUNK), end)));
  }
  performance.mark('papo-all-cards');
  document.body.dataset.all = 'true';
}

function startReply(m: MessageView): void {
  replyTo = m.id;
  $('reply-to-text').textContent = t.replyingTo(m.from, m.id);
  $('reply-to').hidden = false;
  ($('say-to') as HTMLInputElement).value = m.from;
  $('say-body').focus();
}

function showResult(into: HTMLElement, r: ActionResult): void {
  into.textContent = r.lines.join('\n');
  into.className = r.ok ? 'ok' : 'bad';
}

async function post(path: string, data: unknown): Promise<ActionResult> {
  try {
    const res = await api(`${path}${query}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(data),
    });
    return (await res.json()) as ActionResult;
  } catch (err) {
    return { ok: false, lines: [String(err)] };
  }
}

/** The review queue's cards by message id, kept while the message stays held. */
const heldCards = new Map<string, HTMLElement>();

/**
 * A held message's card: its rendered body, approve, a reason and reject. A message the page cannot
 * show has no Approve: the person has not read it (`papo review approve` in a terminal still can).
 */
function heldCard(m: MessageView): HTMLElement {
  const { card, shown } = cardOf(m);
  const { node, state } = card;
  node.classList.add('held');
  state.textContent = t.held;
  const decide = el('div', undefined, 'decide');
  const approve = el('button', t.approve);
  approve.type = 'button';
  approve.className = 'approve';
  const label = el('label', t.reasonLabel);
  const reason = el('input');
  reason.className = 'reason';
  reason.maxLength = 2000;
  label.append(reason);
  const reject = el('button', t.reject);
  reject.type = 'button';
  reject.className = 'reject';
  const result = el('p', '', 'result');
  result.setAttribute('role', 'status');
  const act = async (action: 'approve' | 'reject') => {
    approve.disabled = true;
    reject.disabled = true;
    result.textContent = action === 'approve' ? t.approving : t.rejecting;
    const r2 = await post('/api/review', { action, id: m.id, reason: reason.value });
    showResult(result, r2);
    approve.disabled = false;
    reject.disabled = false;
  };
  approve.addEventListener('click', () => void act('approve'));
  reject.addEventListener('click', () => void act('reject'));
  if (shown) decide.append(approve);
  decide.append(label, reject);
  node.append(decide, result);
  return node;
}

/**
 * The queue as the server last told it. A card still held is kept as it is, so that every event
 * the log brings neither wipes a reason being typed nor pulls a button away under a click.
 */
function showReview(r: ReviewState): void {
  const section = $('review');
  section.hidden = !r.on && r.held.length === 0;
  $('review-state').textContent = r.on ? t.reviewOn(r.held.length) : t.reviewOff(r.held.length);
  const still = new Set(r.held.map((m) => m.id));
  for (const [id, node] of heldCards) {
    if (still.has(id)) continue;
    node.remove();
    heldCards.delete(id);
  }
  const list = $('held');
  r.held.forEach((m, i) => {
    let node = heldCards.get(m.id);
    if (!node) {
      node = heldCard(m);
      heldCards.set(m.id, node);
    }
    // Moved only when out of place: a moved node loses the focus of a reason being typed.
    const at = list.children[i] ?? null;
    if (at !== node) list.insertBefore(node, at);
  });
}

async function checkRoom(): Promise<void> {
  const state = $('room-state');
  state.textContent = t.looking;
  const res = await api(`/api/members${query}`, { method: 'POST' });
  const data = (await res.json()) as MembersReply;
  const list = $('members');
  list.replaceChildren();
  if (data.live) {
    for (const m of data.live) {
      const li = el('li');
      li.append(el('strong', m.name), ` (${m.kind === 'human' ? t.human : t.agent}) `);
      li.append(
        el(
          'span',
          m.online
            ? `${t.online}${m.path ? `, ${m.path === 'relay' ? t.relayed : t.direct}` : ''}`
            : t.offline,
          m.online ? 'ok' : 'bad',
        ),
      );
      if (m.yourAgent) li.append(` — ${t.yourAgent}`);
      else if (m.about) li.append(` — ${m.about}`);
      list.append(li);
    }
    state.textContent = data.live.length === 0 ? t.nobodyFound : '';
  } else {
    for (const m of data.remembered) {
      const li = el('li');
      li.append(
        el('strong', m.name),
        ` (${m.kind === 'human' ? t.human : t.agent})${m.about ? ` — ${m.about}` : ''}`,
      );
      list.append(li);
    }
    state.textContent = data.error ?? '';
  }
}

/** The picker, when PAPO_HOME holds more than one profile: another profile opens in this tab. */
async function showProfiles(current: string): Promise<void> {
  const res = await api('/api/profiles');
  const data = (await res.json()) as ProfilesReply;
  if (data.profiles.length < 2) return;
  const select = $('profile') as HTMLSelectElement;
  for (const p of data.profiles) {
    const option = el('option', t.profileOption(p.profile, p.self, p.roomId));
    option.value = p.profile;
    option.selected = p.profile === current;
    select.append(option);
  }
  $('profiles').hidden = false;
  select.addEventListener('change', () => location.assign(`/?profile=${encodeURIComponent(select.value)}`));
}

async function start(): Promise<void> {
  session = await signIn();
  if (session === null) return signedOut();
  // The stream first: once it says it follows the log, the state is read, so that nothing written
  // in between is missed (what both carry is shown once: cards are by id).
  const events = new EventSource(
    `/api/events?s=${encodeURIComponent(session)}${chosen === null ? '' : `&profile=${encodeURIComponent(chosen)}`}`,
  );
  let early: EntriesEvent[] | undefined = [];
  events.addEventListener('entries', (ev) => {
    const data = JSON.parse((ev as MessageEvent<string>).data) as EntriesEvent;
    if (early) early.push(data);
    else {
      for (const e of data.entries) apply(e);
      showReview(data.review);
    }
  });
  await new Promise<void>((resolve) => events.addEventListener('following', () => resolve(), { once: true }));
  const res = await api(`/api/state${query}`);
  if (!res.ok) return;
  const state = (await res.json()) as StateReply;
  self = state.self;
  t = textsFor(state.lang);
  translatePage(t, state.lang);
  $('where').textContent = t.where(state.self, state.roomId, state.profile);
  showReview(state.review);
  const shown = showLog(state.entries);
  void shown;
  for (const data of early) {
    for (const e of data.entries) apply(e);
    showReview(data.review);
  }
  early = undefined;
  $('say-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = $('say-body') as HTMLTextAreaElement;
    const to = $('say-to') as HTMLInputElement;
    const send = $('say-send') as HTMLButtonElement;
    const outcome = $('say-outcome');
    send.disabled = true;
    outcome.className = '';
    outcome.textContent = t.sending;
    const r = await post('/api/say', { body: body.value, to: to.value, ...(replyTo ? { replyTo } : {}) });
    showResult(outcome, r);
    // The profile's log holds a person's say only when its own agent got it (one to the whole
    // room): the page shows it anyway, as papo say's answer tells it.
    if (r.ok && r.said) {
      const target = to.value.trim();
      addMessage(
        {
          id: r.said.id,
          from: self,
          kind: 'human',
          ...(target !== '' ? { to: target } : {}),
          ...(replyTo ? { replyTo } : {}),
          ts: Date.now(),
          body: body.value.trim(),
        },
        true,
        false,
      );
      deliveredBy.set(r.said.id, [...r.said.ackedBy]);
      refresh(r.said.id);
    }
    send.disabled = false;
    if (r.ok) {
      body.value = '';
      replyTo = undefined;
      $('reply-to').hidden = true;
    }
  });
  $('reply-cancel').addEventListener('click', () => {
    replyTo = undefined;
    $('reply-to').hidden = true;
  });
  $('room-check').addEventListener('click', () => void checkRoom());
  void showProfiles(state.profile);
}

void start();
