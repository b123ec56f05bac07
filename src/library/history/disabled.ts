import type { History } from './types.js';

/** History that is off (git missing, no root, a read-only root): reads answer nothing, commits are dropped. */
export function disabledHistory(why: string): History {
  return {
    enabled: false,
    disabled: why,
    commit() {},
    async settle() {},
    async log() {
      return [];
    },
    async show() {
      return null;
    },
    async showMany(items) {
      return items.map(() => null);
    },
    async recent() {
      return [];
    },
    onCommit: () => () => {},
  };
}
