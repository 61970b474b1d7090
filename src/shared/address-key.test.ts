import { describe, expect, it } from "vitest";
import { addressKey } from "./address-key.js";

describe("addressKey: what a per-address limit counts a client by", () => {
  it("addressKey: an IPv4 address is its own key", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
  });

  it("addressKey: IPv6 addresses of one /64 share a key, in one form whatever their spelling", () => {
    const key = "2001:db8:1:2::/64";
    expect(addressKey("2001:db8:1:2::1")).toBe(key);
    expect(addressKey("2001:0DB8:0001:0002:ffff:ffff:ffff:fffe")).toBe(key);
    expect(addressKey("2001:db8:1:2:a:b:c:d")).toBe(key);
    expect(addressKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("2001:db8::")).toBe("2001:db8:0:0::/64");
  });

  it("addressKey: an IPv4-mapped IPv6 address counts as its IPv4 address, in either spelling", () => {
    expect(addressKey("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(addressKey("::FFFF:a00:1")).toBe("10.0.0.1");
    expect(addressKey("0:0:0:0:0:ffff:203.0.113.255")).toBe("203.0.113.255");
  });

  it("addressKey: a zone is dropped; anything that is not an address is kept as it is", () => {
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("unknown")).toBe("unknown");
    expect(addressKey("not:an:address")).toBe("not:an:address");
  });
});
