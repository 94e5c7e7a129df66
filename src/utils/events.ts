/** A small typed event emitter: one map from event name to payload type. */
export type Listener<T> = (payload: T) => void

export class TypedEmitter<Events extends Record<string, unknown>> {
  /** Keyed by event name; not by `keyof Events`, so an emitter of a larger map serves where a part of it is expected. */
  private readonly listeners = new Map<PropertyKey, Set<Listener<never>>>()

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event)
    if (!set) {
      set = new Set()
      this.listeners.set(event, set)
    }
    set.add(listener as Listener<never>)
    return () => this.off(event, listener)
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void {
    this.listeners.get(event)?.delete(listener as Listener<never>)
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.listeners.get(event)
    if (!set) return
    for (const l of [...set]) (l as Listener<Events[K]>)(payload)
  }

  listenerCount<K extends keyof Events>(event: K): number {
    return this.listeners.get(event)?.size ?? 0
  }
}
