import type { LeaseStore } from "@axiom-lattice/protocols";
import { afterEach, describe, expect, it } from "vitest";
import { StoreNotRegisteredError, getStoreLattice, registerStoreLattice, resetStoreLattice } from "../src";

const fakeLeaseStore = (): LeaseStore => ({
  acquire: async () => null,
  tryAcquire: async () => false,
  renew: async () => false,
  release: async () => false,
  get: async () => null,
  list: async () => [],
});

describe("store registry", () => {
  afterEach(() => resetStoreLattice());

  it("returns the store registered for a key and kind", () => {
    const store = fakeLeaseStore();
    registerStoreLattice("default", "lease", store);
    expect(getStoreLattice("default", "lease")).toBe(store);
  });

  it("keeps keys apart", () => {
    const a = fakeLeaseStore();
    const b = fakeLeaseStore();
    registerStoreLattice("default", "lease", a);
    registerStoreLattice("other", "lease", b);
    expect(getStoreLattice("other", "lease")).toBe(b);
    expect(getStoreLattice("default", "lease")).toBe(a);
  });

  it("names the unregistered kind in its error", () => {
    expect(() => getStoreLattice("tenant-x", "projectRoom")).toThrow(StoreNotRegisteredError);
    expect(() => getStoreLattice("tenant-x", "projectRoom")).toThrow(/"projectRoom"/);
  });
});
