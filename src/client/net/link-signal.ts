// What the mesh and its links send each other through the sealed signal channel (docs/transport.md
// "Sealed signalling", ADR 0032), and its one parser. The payload comes out of a seal that proves
// which room member sent it, not what it holds: it is checked here before the mesh or a link acts.

/** A signal of one link attempt, named by the attempt's link id (chosen by the offerer). */
export type LinkSignal =
  | { k: 'offer'; link: string; sdp: string }
  | { k: 'answer'; link: string; sdp: string }
  | { k: 'cand'; link: string; cand: string; mid: string };

/** The answerer holds no link to the offerer and asks it for a fresh offer. */
export interface Knock {
  k: 'knock';
}

/** Every signal between two meshes: a knock, or a signal for one of their links. */
export type MeshSignal = Knock | LinkSignal;

export const KNOCK: Knock = Object.freeze({ k: 'knock' });

/** A link id: 16 lower-case hex, random per attempt (newLinkId in peer-link.ts). */
export const LINK_ID = /^[0-9a-f]{16}$/;
const MAX_SDP = 32 * 1024;
const MAX_CANDIDATE = 1024;

/** The checked signal, or undefined for anything else (the mesh logs and drops it). Never throws. */
export function parseMeshSignal(payload: unknown): MeshSignal | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const p = payload as Record<string, unknown>;
  // A knock carries nothing else; what else a peer puts in it is ignored.
  if (p.k === 'knock') return KNOCK;
  if (typeof p.link !== 'string' || !LINK_ID.test(p.link)) return undefined;
  if (p.k === 'offer' || p.k === 'answer') {
    if (typeof p.sdp !== 'string' || p.sdp.length === 0 || p.sdp.length > MAX_SDP) return undefined;
    return { k: p.k, link: p.link, sdp: p.sdp };
  }
  if (p.k === 'cand') {
    if (typeof p.cand !== 'string' || p.cand.length > MAX_CANDIDATE) return undefined;
    if (typeof p.mid !== 'string' || p.mid.length > 64) return undefined;
    return { k: 'cand', link: p.link, cand: p.cand, mid: p.mid };
  }
  return undefined;
}
