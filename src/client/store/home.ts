// Where papo keeps its profiles: $PAPO_HOME, else ~/.papo (docs/files.md, "The profile on disk").
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The papo home folder. An empty PAPO_HOME counts as unset, like every PAPO_* variable. */
export function papoHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.PAPO_HOME;
  return fromEnv ? resolve(fromEnv) : join(homedir(), '.papo');
}

/**
 * The folder of one profile. `profile` must already be a valid profile name (names.ts): it
 * becomes a path component, so an unchecked name could point outside the home.
 */
export function profileDir(home: string, profile: string): string {
  return join(home, 'profiles', profile);
}
