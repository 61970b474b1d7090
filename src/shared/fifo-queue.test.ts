import { describe, expect, it } from "vitest";
import { FifoQueue } from "./fifo-queue.js";

describe("FifoQueue", () => {
  it("FifoQueue: entries come out in the order they went in, across chunks", () => {
    const queue = new FifoQueue<number>();
    for (let i = 0; i < 10_000; i++) queue.push(i);
    expect(queue.length).toBe(10_000);
    for (let i = 0; i < 5_000; i++) expect(queue.shift()).toBe(i);
    for (let i = 10_000; i < 12_000; i++) queue.push(i);
    expect(queue.peek()).toBe(5_000);
    const rest: number[] = [];
    for (let value = queue.shift(); value !== undefined; value = queue.shift()) rest.push(value);
    expect(rest).toEqual(Array.from({ length: 7_000 }, (_, i) => 5_000 + i));
    expect(queue.length).toBe(0);
  });

  it("FifoQueue: empty, peek and shift answer undefined, and it fills again", () => {
    const queue = new FifoQueue<string>();
    expect([queue.peek(), queue.shift(), queue.length]).toEqual([undefined, undefined, 0]);
    queue.push("a");
    expect(queue.shift()).toBe("a");
    queue.push("b");
    expect([queue.peek(), queue.length]).toEqual(["b", 1]);
  });
});
