// Qwen Code's door: its Cross-Session Protocol (0.24). TO BE BUILT (issue 42): until then no door.
import type { Door } from '../push-contract.js';

export const qwenDoor: Door = () => undefined;
