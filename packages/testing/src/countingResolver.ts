import type { LookupAddress } from "node:dns";
import { isIPv6 } from "node:net";

/** A resolver (an egress policy's `resolve`) that answers every name with `address`, counting the look-ups. */
export function countingResolver(address: string): { resolve: (hostname: string) => Promise<LookupAddress[]>; readonly count: number } {
  let count = 0;
  return {
    resolve: async () => {
      count += 1;
      return [{ address, family: isIPv6(address) ? 6 : 4 }];
    },
    get count() {
      return count;
    },
  };
}
