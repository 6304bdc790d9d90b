// The review gate's allow rules bound to the room's keys (ADR 0095). A rule the person makes with
// `papo review allow` lets through the keys the room held for a name at that moment (names.json,
// member-names.ts: the first key the room showed with each name), not whichever key holds the name
// when a message comes: a key that takes the name later (after `papo forget`, or past a flooded
// names.json) waits for the person. `allow --people` lets through the persons the room's agents
// had announced then (each agent's hello names its person's key), and no person who comes later.
//
// names.json is read as the running papo mcp last wrote it (within 5 s of a change), without the
// profile's lock: the rules are written to review.json, which is the person's.
import { readNames } from '../store/profile-store.js';
import type { AllowedMember, AllowedPerson } from '../store/review.js';
import type { SenderKind } from '../wire/messages.js';
import { isMemberName, NODE_ID_PATTERN, sameName } from '../wire/names.js';
import { KnownNames, nameKey } from './member-names.js';

/** Who held each name in the room, as names.json says. */
export interface RoomKeys {
  /** The key that holds `name` as `kind`, or undefined when the room never showed it. */
  holder(name: string, kind: SenderKind): string | undefined;
  /** The names the room knows an agent by. */
  agents: string[];
}

/**
 * names.json of the profile in `dir`; an entry papo would not write (a name or a key of another
 * shape) is not read, so no rule is made of it. Error: 'profile_corrupt' when it is not an object.
 */
export async function roomKeys(dir: string): Promise<RoomKeys> {
  const saved = await readNames(dir);
  const names = new KnownNames(saved);
  // The keys of names.json are "<name> (<kind>)" (nameKey): those of agents name an agent.
  const agents = Object.keys(saved).flatMap((key) => {
    const name = key.slice(0, key.lastIndexOf(' ('));
    return isMemberName(name) && nameKey(name, 'agent') === key ? [name] : [];
  });
  return {
    holder: (name, kind) => {
      const key = names.holder(name, kind);
      return key !== undefined && NODE_ID_PATTERN.test(key) ? key : undefined;
    },
    agents,
  };
}

/** `name` bound to its agent's and its person's keys now; undefined when the room knows neither. */
export function memberRule(keys: RoomKeys, name: string): AllowedMember | undefined {
  const agent = keys.holder(name, 'agent');
  const human = keys.holder(name, 'human');
  if (agent === undefined && human === undefined) return undefined;
  return { name, ...(agent !== undefined ? { agent } : {}), ...(human !== undefined ? { human } : {}) };
}

/**
 * The persons `allow --people` lets through: for each agent the room knows (but our own), the
 * person key held under its name. A person whose agent the room never showed is not among them.
 */
export function peopleRule(keys: RoomKeys, ownName: string): AllowedPerson[] {
  return keys.agents
    .filter((name) => !sameName(name, ownName))
    .flatMap((name) => {
      const key = keys.holder(name, 'human');
      return key === undefined ? [] : [{ name, key }];
    });
}

/** Whether another key holds a rule's name now than the one the rule lets through (papo forget). */
export function ruleMoved(keys: RoomKeys, rule: AllowedMember): boolean {
  const moved = (key: string | undefined, kind: SenderKind) => {
    const now = keys.holder(rule.name, kind);
    return key !== undefined && now !== undefined && now !== key;
  };
  return moved(rule.agent, 'agent') || moved(rule.human, 'human');
}
