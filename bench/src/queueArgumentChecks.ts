// `tsx src/queueArgumentChecks.ts`: the cost of checking the queue's hot-path arguments (add, claim,
// renew, complete) as the stores do (hand-written, queueArguments.ts) and as a zod schema of the
// shared field rules would, in the same process. It decides whether the queue keeps hand-written
// checks (docs/architecture.md, "Validation").
import { fieldRules as rules, parseStoreArgument, validateAddMessage, validateClaimOptions, validateRenewal, validateRunOutcome } from "@axiom-lattice/core";
import { z } from "zod";

const scope = z.object({ tenantId: rules.text.optional(), assistantId: rules.text.optional() }).optional();
const addSchema = z.object({
  id: rules.text.optional(),
  threadId: rules.text,
  scope,
  content: rules.jsonValue,
  priority: rules.priority.optional(),
  capacity: rules.integer(1).optional(),
  tenantCapacity: rules.integer(1).optional(),
  delayMs: rules.integer(0).optional(),
});
const fence = z.object({ key: rules.text, token: z.string().regex(/^(0|[1-9][0-9]{0,18})$/) }).optional();
const claimSchema = z.object({ owner: rules.text, leaseMs: rules.positiveNumber, limit: rules.integer(1, 1000).optional(), fence });
const renewSchema = z.object({ ids: z.array(rules.text).max(1000), owner: rules.text, leaseMs: rules.positiveNumber });
const outcomeSchema = z.object({ status: z.enum(["success", "error", "interrupted", "aborted"]), error: rules.string.optional() });

const message = {
  id: "m-1",
  threadId: "thread-1",
  scope: { tenantId: "acme", assistantId: "echo" },
  content: { role: "user", content: "Hello there, a message of a typical size for a chat turn." },
  priority: 0,
  tenantCapacity: 1000,
};
const claim = { owner: "replica-1", leaseMs: 30_000, limit: 10, fence: { key: "thread:thread-1", token: "42" } };
const ids = Array.from({ length: 10 }, (_, index) => `m-${index}`);
const outcome = { status: "success" as const };

const cases: Array<[string, () => unknown, () => unknown]> = [
  ["add", () => validateAddMessage(message, 10_000), () => parseStoreArgument(addSchema, message, "Message")],
  ["claim", () => validateClaimOptions(claim), () => parseStoreArgument(claimSchema, claim, "Claim")],
  ["renew (10 ids)", () => validateRenewal(ids, "replica-1", 30_000), () => parseStoreArgument(renewSchema, { ids, owner: "replica-1", leaseMs: 30_000 }, "Renewal")],
  ["complete", () => validateRunOutcome(outcome), () => parseStoreArgument(outcomeSchema, outcome, "Run outcome")],
];

/** Nanoseconds per call: the median of 7 rounds of `calls` calls, after a warm-up. */
function nsPerCall(check: () => unknown, calls = 200_000): number {
  for (let index = 0; index < calls; index += 1) check();
  const rounds: number[] = [];
  for (let round = 0; round < 7; round += 1) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < calls; index += 1) check();
    rounds.push(Number(process.hrtime.bigint() - start) / calls);
  }
  return rounds.sort((a, b) => a - b)[3];
}

for (const [name, handWritten, zod] of cases) {
  const hand = nsPerCall(handWritten);
  const shared = nsPerCall(zod);
  console.log(`${name.padEnd(15)} hand-written ${hand.toFixed(0).padStart(6)} ns/call   zod (shared rules) ${shared.toFixed(0).padStart(6)} ns/call   ratio ${(shared / hand).toFixed(2)}`);
}
