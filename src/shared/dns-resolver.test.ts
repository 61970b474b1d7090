import { createSocket } from "node:dgram";
import { describe, expect, it } from "vitest";
import { DnsResolver, DnsUnavailableError } from "./dns-resolver.js";

describe("DnsResolver", () => {
  it("DnsResolver: without a server it uses the system's resolvers (constructing asks nothing)", () => {
    expect(() => new DnsResolver({ timeoutMs: 100 })).not.toThrow();
    expect(() => new DnsResolver({ server: undefined, timeoutMs: 100 })).not.toThrow();
  });

  it("DnsResolver: a resolver that never answers is asked once, then DnsUnavailableError", async () => {
    // A UDP socket that reads queries and answers none.
    const socket = createSocket("udp4");
    let queries = 0;
    socket.on("message", () => queries++);
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
    try {
      const resolver = new DnsResolver({ server: `127.0.0.1:${socket.address().port}`, timeoutMs: 200 });
      const error = await resolver.txt("www.example.test").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DnsUnavailableError);
      expect((error as DnsUnavailableError).reason).toBe("the resolver did not answer in time");
      expect(queries).toBe(1);
    } finally {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    }
  });
});
