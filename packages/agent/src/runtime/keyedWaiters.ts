/** Waits by key, each bounded by a timeout: what followers block on until something happens to theirs. */
export class KeyedWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Resolves at the next `wake` of `key` (or `wakeAll`), or after `timeoutMs`. */
  wait(key: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      let waiters = this.waiters.get(key);
      if (!waiters) this.waiters.set(key, (waiters = new Set()));
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      waiters.add(done);
    });
  }

  wake(key: string): void {
    for (const done of [...(this.waiters.get(key) ?? [])]) done();
  }

  wakeAll(): void {
    for (const key of [...this.waiters.keys()]) this.wake(key);
  }
}
