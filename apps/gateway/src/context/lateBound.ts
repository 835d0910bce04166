/**
 * A component that some of the components it is built on call back: they are given this handle,
 * made before any of them, and reach the component through it once it is bound. The agent runtime
 * is one: it is built on the task service and the plugin catalog, and the task service wakes its
 * threads while the catalog lists its tools, both only once the gateway runs.
 */
export class LateBound<T> {
  private value: T | undefined;

  constructor(private readonly name: string) {}

  /** Binds the component, once. */
  bind(value: T): T {
    if (this.value !== undefined) throw new Error(`${this.name} is bound already`);
    this.value = value;
    return value;
  }

  /** The component; throws when called before it is built. */
  get(): T {
    if (this.value === undefined) throw new Error(`${this.name} used before it is built`);
    return this.value;
  }
}
