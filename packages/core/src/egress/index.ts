export { type EgressAllowEntry, type EgressAllowList, parseEgressAllowList } from "./egressAllowList";
export { EgressRefusedError, type EgressRefusalCode, findEgressRefusal } from "./egressRefusedError";
export { type EgressPolicy, type EgressResolver, checkEgressUrl, egressPolicyFor } from "./egressPolicy";
export { egressFetch } from "./egressFetch";
