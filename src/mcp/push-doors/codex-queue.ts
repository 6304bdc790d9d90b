// Codex CLI's door: `codex queue --thread <id> --message <text>` (0.171). TO BE BUILT (issue 42):
// until then no door.
import type { Door } from '../push-contract.js';

export const codexDoor: Door = () => undefined;
