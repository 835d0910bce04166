type Listener<T> = (payload: T) => void;

/**
 * Process-local publish/subscribe. A listener that throws is reported through `onListenerError` and
 * never prevents delivery to the others.
 */
export class EventBus<Events extends Record<string, unknown> = Record<string, unknown>> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  constructor(private readonly onListenerError: (error: unknown, event: keyof Events) => void = () => {}) {}

  /** Subscribes to one event; returns the function that unsubscribes. */
  on<E extends keyof Events>(event: E, listener: Listener<Events[E]>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as Listener<never>);
    return () => {
      set.delete(listener as Listener<never>);
    };
  }

  emit<E extends keyof Events>(event: E, payload: Events[E]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as Listener<Events[E]>)(payload);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }

  listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}
