/** The longest delay `setTimeout` honours; a longer one would fire at once. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Calls `fn` at epoch time `atMs` (at once when it is past). Waits longer than the platform maximum
 * are taken in steps, each re-measured against the clock. The timer does not keep the process alive.
 * Returns a function that cancels it.
 */
export function setTimerAt(atMs: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout;
  const wait = () => {
    const remaining = atMs - Date.now();
    timer = remaining > MAX_TIMER_DELAY_MS ? setTimeout(wait, MAX_TIMER_DELAY_MS) : setTimeout(fn, Math.max(0, remaining));
    timer.unref();
  };
  wait();
  return () => clearTimeout(timer);
}
