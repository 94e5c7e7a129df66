/** A binary heap ordered by `less`: `peek()`/`pop()` give the element no other element is less than. */
export class BinaryHeap<T> {
  private items: T[] = []

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length
  }

  peek(): T | undefined {
    return this.items[0]
  }

  push(item: T): void {
    this.items.push(item)
    this.up(this.items.length - 1)
  }

  pop(): T | undefined {
    const items = this.items
    if (items.length === 0) return undefined
    const top = items[0]!
    const last = items.pop()!
    if (items.length > 0) {
      items[0] = last
      this.down(0)
    }
    return top
  }

  /** Replaces the top element and restores the order (one sift instead of pop + push). */
  replaceTop(item: T): void {
    this.items[0] = item
    this.down(0)
  }

  /** Replaces the contents in O(n). */
  reset(items: T[]): void {
    this.items = items
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.down(i)
  }

  private up(i: number): void {
    const items = this.items
    const item = items[i]!
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(item, items[parent]!)) break
      items[i] = items[parent]!
      i = parent
    }
    items[i] = item
  }

  private down(i: number): void {
    const items = this.items
    const n = items.length
    const item = items[i]!
    for (;;) {
      let child = 2 * i + 1
      if (child >= n) break
      if (child + 1 < n && this.less(items[child + 1]!, items[child]!)) child++
      if (!this.less(items[child]!, item)) break
      items[i] = items[child]!
      i = child
    }
    items[i] = item
  }
}
