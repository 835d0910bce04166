import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretDecryptionError, SecretKeyring, SecretKeyringError, keyringFromEnvironment } from "../../src";

const key = () => randomBytes(32).toString("base64");

describe("SecretKeyring", () => {
  it("round-trips text, with a fresh IV per seal and the key version in the sealed value", () => {
    const keyring = SecretKeyring.parse(`v1:${key()}`);
    const first = keyring.seal("sk-secret ünïcode");
    const second = keyring.seal("sk-secret ünïcode");
    expect(first).not.toBe(second);
    expect(first).not.toContain("sk-secret");
    expect(first.startsWith("enc:v1:")).toBe(true);
    expect(keyring.open(first)).toBe("sk-secret ünïcode");
    expect(keyring.open(keyring.seal(""))).toBe("");
  });

  it("detects tampering with the ciphertext, the tag or the IV", () => {
    const keyring = SecretKeyring.parse(`v1:${key()}`);
    const parts = keyring.seal("sk-secret").split(":");
    for (const index of [2, 3, 4]) {
      const bytes = Buffer.from(parts[index], "base64url");
      bytes[0] ^= 1;
      const tampered = parts.map((part, at) => (at === index ? bytes.toString("base64url") : part)).join(":");
      expect(() => keyring.open(tampered)).toThrow(SecretDecryptionError);
    }
    expect(() => keyring.open("sk-plain")).toThrow(SecretDecryptionError);
  });

  it("refuses to open with the wrong key or an unknown version", () => {
    const sealed = SecretKeyring.parse(`v1:${key()}`).seal("sk-secret");
    expect(() => SecretKeyring.parse(`v1:${key()}`).open(sealed)).toThrow(/wrong key or tampered/);
    expect(() => SecretKeyring.parse(`v2:${key()}`).open(sealed)).toThrow(/key version "v1"/);
  });

  it("rotates: a new current key still opens values of older versions and reseals them under itself", () => {
    const [k1, k2] = [key(), key()];
    const old = SecretKeyring.parse(`v1:${k1}`);
    const sealedOld = old.seal("sk-old");
    const sealedDev = SecretKeyring.development().seal("sk-dev");
    const rotated = SecretKeyring.parse(`v2:${k2},v1:${k1}`);
    expect(rotated.currentVersion).toBe("v2");
    expect(rotated.open(sealedOld)).toBe("sk-old");
    expect(rotated.open(sealedDev)).toBe("sk-dev");
    const resealed = rotated.reseal(sealedOld);
    expect(SecretKeyring.versionOf(resealed)).toBe("v2");
    expect(rotated.open(resealed)).toBe("sk-old");
    expect(rotated.reseal(resealed)).toBe(resealed);
    expect(rotated.needsResealing(resealed)).toBe(false);
    expect(rotated.open(rotated.reseal("sk-plain"))).toBe("sk-plain");
    expect(() => SecretKeyring.parse(`v2:${k2}`).open(sealedOld)).toThrow(SecretDecryptionError);
  });

  it("refuses malformed key specifications", () => {
    for (const spec of ["", "nokey", `v1:${randomBytes(16).toString("base64")}`, `v1:${key()},v1:${key()}`, `dev:${key()}`, `bad version:${key()}`]) {
      expect(() => SecretKeyring.parse(spec), spec).toThrow(SecretKeyringError);
    }
  });
});

describe("keyringFromEnvironment", () => {
  it("uses LATTICE_ENCRYPTION_KEY, else the development key, which production refuses", () => {
    expect(keyringFromEnvironment({ LATTICE_ENCRYPTION_KEY: `v3:${key()}` })).toMatchObject({ development: false, keyring: { currentVersion: "v3" } });
    expect(keyringFromEnvironment({})).toMatchObject({ development: true, keyring: { currentVersion: "dev" } });
    expect(() => keyringFromEnvironment({ NODE_ENV: "production" })).toThrow(/must be set when NODE_ENV=production/);
  });
});
