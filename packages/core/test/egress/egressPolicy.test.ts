import { describe, expect, it } from "vitest";
import { type EgressPolicy, type EgressResolver, checkEgressUrl, parseEgressAllowList } from "../../src";

const authOn: EgressPolicy = { localNetworks: false, resolve: async () => [{ address: "93.184.215.14", family: 4 }] };
const authOff: EgressPolicy = { ...authOn, localNetworks: true };
const withAllow = (raw: string, base: EgressPolicy = authOn): EgressPolicy => ({ ...base, allow: parseEgressAllowList(raw) });

const refusal = (url: string, policy: EgressPolicy) =>
  checkEgressUrl(url, policy).then(
    () => undefined,
    (error: { code?: string; message: string }) => `${error.code}: ${error.message}`,
  );

// Every spelling of an internal target a tenant might write.
const LOOPBACK = ["127.0.0.1", "2130706433", "0x7f000001", "017700000001", "127.1", "[::1]", "[::ffff:127.0.0.1]", "[::127.0.0.1]"];
const PRIVATE = ["10.0.0.1", "172.16.0.1", "192.168.1.1", "100.64.0.1", "[fd00::1]", "[::ffff:10.0.0.1]", "[64:ff9b::a00:1]"];
const NEVER = ["169.254.169.254", "[::ffff:169.254.169.254]", "[::ffff:a9fe:a9fe]", "[fe80::1]", "0.0.0.0", "[::]", "224.0.0.1", "255.255.255.255", "240.0.0.1", "[2002:7f00:1::]"];

describe("the egress policy at write, with authentication on", () => {
  it.each([...LOOPBACK, ...PRIVATE, ...NEVER])("refuses http://%s/ naming its range", async (host) => {
    expect(await refusal(`http://${host}:8000/v1`, authOn)).toMatch(/^BASE_URL_NOT_ALLOWED: address \S+ is in the .+ range, which is refused; list it in AXIOM_UPSTREAM_ALLOW to allow it$/);
  });

  it("names the range and the address a mapped spelling reaches", async () => {
    expect(await refusal("http://[::ffff:169.254.169.254]/latest/meta-data", authOn)).toBe(
      "BASE_URL_NOT_ALLOWED: address 169.254.169.254 is in the link-local range, which is refused; list it in AXIOM_UPSTREAM_ALLOW to allow it",
    );
    expect(await refusal("http://2130706433/", authOn)).toContain("address 127.0.0.1 is in the loopback range");
  });

  it("refuses a host name resolving to a refused address (localhost by the system resolver)", async () => {
    expect(await refusal("http://localhost:11434/v1", { localNetworks: false })).toMatch(/^BASE_URL_NOT_ALLOWED: host "localhost" \(address (127\.0\.0\.1|::1)\) is in the loopback range/);
    const rebinder: EgressResolver = async () => [{ address: "8.8.8.8", family: 4 }, { address: "10.1.2.3", family: 4 }];
    expect(await refusal("https://llm.example.test/v1", { localNetworks: false, resolve: rebinder })).toContain('host "llm.example.test" (address 10.1.2.3) is in the private range');
  });

  it("allows public addresses and names, and a name that does not resolve now (each connection checks again)", async () => {
    expect(await refusal("https://8.8.8.8/v1", authOn)).toBeUndefined();
    expect(await refusal("https://[2606:4700::1111]/v1", authOn)).toBeUndefined();
    expect(await refusal("https://api.example.com/v1", authOn)).toBeUndefined();
    expect(await refusal("https://nowhere.invalid/v1", { ...authOn, resolve: () => Promise.reject(new Error("ENOTFOUND")) })).toBeUndefined();
  });

  it("refuses what is not an http(s) URL", async () => {
    expect(await refusal("ftp://8.8.8.8/", authOn)).toBe('INVALID_BASE_URL: scheme "ftp:" is not allowed; use http or https');
    expect(await refusal("not a url", authOn)).toBe('INVALID_BASE_URL: "not a url" is not a URL');
  });
});

describe("the egress policy at write, with authentication off", () => {
  it.each([...LOOPBACK, ...PRIVATE])("allows the local network address http://%s/", async (host) => {
    expect(await refusal(`http://${host}:8000/v1`, authOff)).toBeUndefined();
  });

  it("allows localhost", async () => {
    expect(await refusal("http://localhost:11434/v1", { localNetworks: true })).toBeUndefined();
  });

  it.each(NEVER)("still refuses http://%s/ (cloud metadata, unspecified, multicast, reserved: never a model server)", async (host) => {
    expect(await refusal(`http://${host}/`, authOff)).toMatch(/^BASE_URL_NOT_ALLOWED: /);
  });
});

describe("AXIOM_UPSTREAM_ALLOW", () => {
  it("allows an address it names explicitly, though in a refused range, and only on a listed port", async () => {
    const policy = withAllow("127.0.0.1:11434, [::1], 169.254.169.254");
    expect(await refusal("http://127.0.0.1:11434/v1", policy)).toBeUndefined();
    expect(await refusal("http://2130706433:11434/v1", policy)).toBeUndefined();
    expect(await refusal("http://[::ffff:7f00:1]:11434/v1", policy)).toBeUndefined();
    expect(await refusal("http://127.0.0.1:8000/v1", policy)).toBe("BASE_URL_NOT_ALLOWED: address 127.0.0.1 is not in AXIOM_UPSTREAM_ALLOW");
    expect(await refusal("http://[::1]:9999/", policy)).toBeUndefined();
    expect(await refusal("http://169.254.169.254/", policy)).toBeUndefined();
  });

  it("allows the addresses of its CIDRs on any port, IPv4 and IPv6", async () => {
    const policy = withAllow("10.0.0.0/8, fd00::/8, 127.0.0.1/32");
    expect(await refusal("http://10.20.30.40:8000/", policy)).toBeUndefined();
    expect(await refusal("http://[::ffff:10.20.30.40]/", policy)).toBeUndefined();
    expect(await refusal("http://[fd12::1]:1/", policy)).toBeUndefined();
    expect(await refusal("http://127.0.0.1:1234/", policy)).toBeUndefined();
    expect(await refusal("http://127.0.0.2/", policy)).toMatch(/^BASE_URL_NOT_ALLOWED: address 127.0.0.2 is not in AXIOM_UPSTREAM_ALLOW/);
    const internalName: EgressPolicy = { ...policy, resolve: async () => [{ address: "10.9.9.9", family: 4 }] };
    expect(await refusal("http://ollama.internal:11434/", internalName)).toBeUndefined();
  });

  it("allows a host it names whatever that resolves to, and nothing else at all (a public address too)", async () => {
    const policy = withAllow("localhost:11434, API.example.com");
    expect(await refusal("http://localhost:11434/v1", { ...policy, resolve: undefined })).toBeUndefined();
    expect(await refusal("https://api.example.com/v1", policy)).toBeUndefined();
    expect(await refusal("http://localhost:8000/v1", { ...policy, resolve: undefined })).toMatch(/^BASE_URL_NOT_ALLOWED: host "localhost" \(address .+\) is not in AXIOM_UPSTREAM_ALLOW$/);
    expect(await refusal("https://8.8.8.8/v1", policy)).toBe("BASE_URL_NOT_ALLOWED: address 8.8.8.8 is not in AXIOM_UPSTREAM_ALLOW");
    expect(await refusal("https://other.example.com/v1", { ...policy, resolve: () => Promise.reject(new Error("ENOTFOUND")) })).toBe(
      'BASE_URL_NOT_ALLOWED: host "other.example.com" is not in AXIOM_UPSTREAM_ALLOW',
    );
  });

  it("refuses an entry that is not a host, host:port or CIDR", () => {
    for (const entry of ["http://x.test", "a.test:0", "a.test:70000", "10.0.0.0/33", "fd00::1", "user@a.test", "[nope]"]) {
      expect(() => parseEgressAllowList(entry), entry).toThrow(`"${entry}" is not a host, host:port or CIDR`);
    }
    expect(parseEgressAllowList(" , ")).toBeUndefined();
  });
});
