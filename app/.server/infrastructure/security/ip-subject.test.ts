import { describe, expect, it } from "vitest";
import { ipRateSubject } from "./ip-subject";

describe("ipRateSubject", () => {
  it("keeps an IPv4 address as it is", () => {
    expect(ipRateSubject("203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts every address of an IPv6 /64 as one subject, and neighbouring /64s apart", () => {
    expect(ipRateSubject("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(ipRateSubject("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(ipRateSubject("2001:DB8:1:2:abcd::9")).toBe("2001:db8:1:2::/64");
    expect(ipRateSubject("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(ipRateSubject("::1")).toBe("0:0:0:0::/64");
  });

  it("reads an IPv4-mapped IPv6 address as its IPv4 address", () => {
    expect(ipRateSubject("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(ipRateSubject("::ffff:cb00:7107")).toBe("203.0.113.7");
  });

  it("keeps an IPv6 zone out of the subject", () => {
    expect(ipRateSubject("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });

  it("counts what does not parse as given", () => {
    expect(ipRateSubject("Unknown")).toBe("unknown");
  });
});
