/**
 * "Something loaded": `next()` is a promise that settles at the following `fire()`, shared by every
 * waiter until then. No waiter, no cost.
 */
export class LoadSignal {
  private waiting: { promise: Promise<void>; resolve: () => void } | undefined;

  next(): Promise<void> {
    if (!this.waiting) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }

  fire(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve();
  }
}
