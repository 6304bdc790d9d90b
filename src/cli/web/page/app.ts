// papo web's page: the conversation as the log holds it, kept live by the server's events, a say
// box, the review queue and the room panel. No framework; every node is made with createElement
// and textContent (markdown.ts), never from markup. What the server sends is typed by ../api.ts,
// imported as types only (erased from app.js).
import type {
  ActionResult,
  EntriesEvent,
  EntryView,
  LiveMemberView,
  MembersReply,
  MessageView,
  PresenceReply,
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

/** Why a request of the page's did not get an answer it can use (said in words, never raw). */
class NotLive extends Error {
  constructor(readonly why: 'down' | 'restarted') {
    super(why);
  }
}

/**
 * A request of the page's, with its session. No answer (papo web stopped) or a session this papo
 * web does not know (it was started again) throws NotLive and puts the page's banner up.
 */
async function api(path: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${session}` },
    });
  } catch {
    lost();
    throw new NotLive('down');
  }
  if (res.status === 401) {
    restarted();
    throw new NotLive('restarted');
  }
  return res;
}

/** No session, or one this papo web did not hand out (it was started again): say what to do. */
function signedOut(): void {
  const words = textsFor(navigator.language.toLowerCase().startsWith('pt') ? 'pt' : 'en');
  const note = $('signed-out');
  note.textContent = words.signedOut;
  note.hidden = false;
}

/**
 * Whether the page is live (ADR 0122): `live`, following the log; `down`, papo web does not answer
 * and the page tries again by itself (1 s, doubling to 15 s, with jitter); `restarted`, papo web
 * answers but not to this tab's session, which ended with the process that handed it out — only
 * the address the new one printed (its new secret) signs the tab in again, so the banner says so.
 */
let link: 'live' | 'down' | 'restarted' = 'live';
let events: EventSource | undefined;
let wordsReady = false;

function showLink(): void {
  const banner = $('banner');
  banner.hidden = link === 'live';
  banner.className = link;
  // Before the state said the person's language, the browser's.
  const words = wordsReady ? t : textsFor(navigator.language.toLowerCase().startsWith('pt') ? 'pt' : 'en');
  banner.textContent = link === 'down' ? words.unreachable : link === 'restarted' ? words.restarted : '';
}

function lost(): void {
  if (link !== 'live') return;
  link = 'down';
  events?.close();
  showLink();
  void reconnect();
}

function restarted(): void {
  if (link === 'restarted') return;
  link = 'restarted';
  events?.close();
  showLink();
}

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 15_000;

/** Tries papo web again until it answers: live again, or started again (then the banner stays). */
async function reconnect(): Promise<void> {
  for (let wait = RETRY_FIRST_MS; link === 'down'; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
    await new Promise((r) => setTimeout(r, wait * (0.75 + Math.random() * 0.5)));
    let res: Response;
    try {
      res = await fetch(`/api/profiles`, { headers: { Authorization: `Bearer ${session}` } });
    } catch {
      continue;
    }
    if (res.status === 401) return restarted();
    if (!res.ok) continue;
    try {
      // Back: the stream again, then what the log wrote meanwhile (cards are by id: none twice).
      const { state, flush } = await follow();
      link = 'live';
      showLink();
      begin(state, flush);
    } catch {
      events?.close();
      // follow() may have found papo web started again (its state answered 401).
      if (linkNow() === 'restarted') return;
    }
  }
}

/** The link as it is now (a function: TypeScript would keep the loop's narrowed view of it). */
const linkNow = () => link;

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
  // Live (not while the log is first built): follow, or hold still and count it as new.
  const live = pending === undefined && document.body.dataset.ready === 'true';
  const follow = live && atBottom();
  const { card, shown } = cardOf(m);
  const { node, state } = card;
  if (typeof m.from === 'string') offerRecipient(m.from);
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
  if (live) arrived(follow);
}

/**
 * Following the conversation: a person at the bottom (within a line's height) sees each new
 * message scrolled into view; one who scrolled up keeps their place and gets a "new messages"
 * marker; a hidden tab counts them in its title until it is seen again.
 */
const NEAR_BOTTOM_PX = 48;
let unseenBelow = 0;
let unseenHidden = 0;
let baseTitle = document.title;

function atBottom(): boolean {
  const box = $('scroller');
  return box.scrollHeight - (box.scrollTop + box.clientHeight) <= NEAR_BOTTOM_PX;
}

function toBottom(): void {
  const box = $('scroller');
  box.scrollTop = box.scrollHeight;
  unseenBelow = 0;
  showUnseen();
}

function showUnseen(): void {
  const marker = $('new-below');
  marker.hidden = unseenBelow === 0;
  marker.textContent = t.newBelow(unseenBelow);
}

function showTitle(): void {
  document.title = unseenHidden > 0 ? `(${unseenHidden}) ${baseTitle}` : baseTitle;
}

function arrived(follow: boolean): void {
  if (document.visibilityState === 'hidden') {
    unseenHidden++;
    showTitle();
  }
  if (follow) toBottom();
  else {
    unseenBelow++;
    showUnseen();
  }
}

/** Whether the view was at the bottom when last scrolled (kept there when the window or header resize). */
let pinned = true;

function followConversation(): void {
  $('new-below').addEventListener('click', toBottom);
  // The room panel filling in, a wrapped header or a resized window makes the conversation's box
  // smaller: a view at the bottom stays at the bottom.
  new ResizeObserver(() => {
    if (pinned) $('scroller').scrollTop = $('scroller').scrollHeight;
  }).observe($('scroller'));
  $('scroller').addEventListener(
    'scroll',
    () => {
      pinned = atBottom();
      if (unseenBelow > 0 && pinned) {
        unseenBelow = 0;
        showUnseen();
      }
    },
    { passive: true },
  );
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') {
      unseenHidden = 0;
      showTitle();
      void refreshPresence();
    }
  });
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
  toBottom();
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

/**
 * A member the say box offers in its "To" (the room's remembered members, and whoever wrote):
 * chosen from a list, so a misspelled name never waits 30 s to be refused. Not the person's own
 * name (their own agent's), which a say to the room reaches anyway.
 */
function offerRecipient(name: string): void {
  if (name === '' || name === self) return;
  const select = $('say-to') as HTMLSelectElement;
  const names = [...select.options].map((o) => o.value);
  if (names.includes(name)) return;
  const option = el('option', name);
  option.value = name;
  const after = [...select.options].slice(1).find((o) => o.value.localeCompare(name) > 0);
  select.insertBefore(option, after ?? null);
}

function startReply(m: MessageView): void {
  replyTo = m.id;
  $('reply-to-text').textContent = t.replyingTo(m.from, m.id);
  $('reply-to').hidden = false;
  offerRecipient(m.from);
  ($('say-to') as HTMLSelectElement).value = m.from === self ? '' : m.from;
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
    // A refusal of the server's own (421, 403, 404) may be plain text: said, not parsed.
    const answer = (await res.json().catch(() => undefined)) as ActionResult | undefined;
    return answer ?? { ok: false, lines: [t.badAnswer(res.status)] };
  } catch (err) {
    if (err instanceof NotLive)
      return { ok: false, lines: [err.why === 'down' ? t.notSentDown : t.notSentRestarted] };
    return { ok: false, lines: [t.badAnswer(0)] };
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

/** A member's line in the room panel: name, kind, online (and by which path) or why not. */
function memberItem(m: LiveMemberView): HTMLElement {
  const li = el('li');
  li.dataset.name = m.name;
  li.append(el('strong', m.name), ` (${m.kind === 'human' ? t.human : t.agent}) `);
  const path = m.path ? `, ${m.path === 'relay' ? t.relayed : t.direct}` : '';
  const state = m.online
    ? m.quietSeconds !== undefined
      ? `${t.online}, ${t.notAnswering(m.quietSeconds)}`
      : `${t.online}${path}`
    : m.why === 'no-link'
      ? t.offlineNoLink
      : m.why === 'signal-down'
        ? t.offlineSignalDown
        : t.offline;
  li.append(el('span', state, m.online ? 'ok' : 'bad'));
  if (m.yourAgent) li.append(` — ${t.yourAgent}`);
  else if (m.about) li.append(` — ${m.about}`);
  return li;
}

function showMembers(live: LiveMemberView[] | undefined, remembered: MembersReply['remembered']): void {
  const list = $('members');
  if (live) list.replaceChildren(...live.map(memberItem));
  else
    list.replaceChildren(
      ...remembered.map((m) => {
        const li = el('li');
        li.dataset.name = m.name;
        li.append(
          el('strong', m.name),
          ` (${m.kind === 'human' ? t.human : t.agent})${m.about ? ` — ${m.about}` : ''}`,
        );
        return li;
      }),
    );
  for (const m of live ?? remembered) offerRecipient(m.name);
}

/**
 * Presence, always shown and kept live (issue 44): the profile's running papo mcp is asked every
 * PRESENCE_MS while the tab is seen (GET /api/presence opens nothing); without one, the members the
 * profile remembers, and the look that opens a member of its own stays a button (checkRoom).
 */
const PRESENCE_MS = 10_000;
let presenceTimer: ReturnType<typeof setTimeout> | undefined;

async function refreshPresence(): Promise<void> {
  clearTimeout(presenceTimer);
  try {
    if (link !== 'live') return;
    const res = await api(`/api/presence${query}`);
    const data = (await res.json()) as PresenceReply;
    $('room-check').hidden = data.running;
    if (data.running) {
      showMembers(data.live, data.remembered);
      $('room-state').textContent = data.live?.length === 0 ? t.nobodyFound : '';
    } else if (!looked) {
      showMembers(undefined, data.remembered);
      $('room-state').textContent = t.noAgentRunning;
    }
  } catch {
    // Not live: the banner says so; presence is asked again once back.
  } finally {
    if (document.visibilityState === 'visible')
      presenceTimer = setTimeout(() => void refreshPresence(), PRESENCE_MS);
  }
}

/** Whether the person asked for a look of the page's own (kept until papo mcp answers again). */
let looked = false;

async function checkRoom(): Promise<void> {
  const state = $('room-state');
  state.textContent = t.looking;
  const res = await api(`/api/members${query}`, { method: 'POST' });
  const data = (await res.json()) as MembersReply;
  looked = true;
  showMembers(data.live, data.remembered);
  state.textContent = data.live ? (data.live.length === 0 ? t.nobodyFound : '') : (data.error ?? '');
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

/**
 * The event stream, then the room's state: once the stream says it follows the log, the state is
 * read, so that nothing written in between is missed (what both carry is shown once: cards are by
 * id). `flush` applies what the stream brought before the state was shown. A stream that breaks
 * puts the page's banner up (lost).
 */
async function follow(): Promise<{ state: StateReply; flush: () => void }> {
  const stream = new EventSource(
    `/api/events?s=${encodeURIComponent(session ?? '')}${chosen === null ? '' : `&profile=${encodeURIComponent(chosen)}`}`,
  );
  events = stream;
  let early: EntriesEvent[] | undefined = [];
  stream.addEventListener('entries', (ev) => {
    const data = JSON.parse((ev as MessageEvent<string>).data) as EntriesEvent;
    if (early) early.push(data);
    else {
      for (const e of data.entries) apply(e);
      showReview(data.review);
    }
  });
  await new Promise<void>((resolve, reject) => {
    stream.addEventListener('following', () => resolve(), { once: true });
    stream.addEventListener('error', () => reject(new NotLive('down')), { once: true });
  });
  // From now on a broken stream is the page not being live; the browser's own retries are not used
  // (a restarted papo web answers them 401, which ends an EventSource without a word).
  stream.addEventListener('error', () => {
    if (events === stream) lost();
  });
  const res = await api(`/api/state${query}`);
  if (!res.ok) throw new NotLive('down');
  const state = (await res.json()) as StateReply;
  return {
    state,
    flush: () => {
      for (const data of early ?? []) {
        for (const e of data.entries) apply(e);
        showReview(data.review);
      }
      early = undefined;
    },
  };
}

let began = false;

/**
 * The room's state shown: the first time, the whole page (its language, the log's cards); when
 * papo web is back after a break, only what is new (cards are by id: none shown twice).
 */
function begin(state: StateReply, flush: () => void): void {
  void refreshPresence();
  if (began) {
    for (const e of state.entries) apply(e);
    showReview(state.review);
    flush();
    return;
  }
  began = true;
  self = state.self;
  t = textsFor(state.lang);
  wordsReady = true;
  translatePage(t, state.lang);
  showLink();
  baseTitle = t.pageTitle(state.self, state.roomId);
  showTitle();
  $('where').textContent = t.where(state.self, state.roomId, state.profile);
  for (const m of state.remembered) offerRecipient(m.name);
  showReview(state.review);
  void showLog(state.entries);
  flush();
  void showProfiles(state.profile).catch(() => undefined);
}

/** The page's controls, wired once. */
function wire(): void {
  followConversation();
  $('say-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = $('say-body') as HTMLTextAreaElement;
    const to = $('say-to') as HTMLSelectElement;
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
      // The person's own words: shown where they are read, whatever they scrolled to.
      toBottom();
    }
    send.disabled = false;
    if (r.ok) {
      body.value = '';
      replyTo = undefined;
      $('reply-to').hidden = true;
    }
  });
  // Ctrl+Enter (⌘+Enter on a Mac) sends; Enter alone is a new line, as in a chat app's box.
  $('say-body').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      ($('say-form') as HTMLFormElement).requestSubmit();
    }
  });
  $('reply-cancel').addEventListener('click', () => {
    replyTo = undefined;
    $('reply-to').hidden = true;
  });
  $('room-check').addEventListener('click', () => void checkRoom().catch(() => undefined));
}

async function start(): Promise<void> {
  // The address papo web printed, pasted into this tab when it shows "/" already, changes only the
  // fragment, which loads nothing: the page starts again to trade the new secret.
  window.addEventListener('hashchange', () => {
    if (new URLSearchParams(location.hash.slice(1)).has('k')) location.reload();
  });
  session = await signIn().catch(() => null);
  if (session === null) return signedOut();
  wire();
  try {
    const { state, flush } = await follow();
    begin(state, flush);
  } catch {
    // Not live from the start (a reload after papo web stopped or started again): said, and tried
    // again by itself (reconnect); the page is built once it is back.
    lost();
  }
}

void start();
