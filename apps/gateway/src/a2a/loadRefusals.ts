import { isDatabaseUnavailable } from "@axiom-lattice/core";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { ERROR_STATUS, isErrorCode } from "../http/errors";

/** Whether `error` refuses the call for the load or the database, not for what it asked: try again later. */
function isLoadRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isErrorCode(code) ? ERROR_STATUS[code] === 429 : isDatabaseUnavailable(error);
}

/**
 * The refusals of an A2A call that are answered in HTTP, as on every other route: the tenant's limits
 * (429 `QUEUE_FULL`, `TOO_MANY_SUBMISSIONS`) and a database that is down (503), with `Retry-After`.
 * The SDK would answer them as JSON-RPC internal errors (-32603), which tell a client that the agent
 * is broken, not that it may retry.
 *
 * {@link watch} wraps a call's handler; once the SDK answered, {@link throwIfRefused} throws the
 * refusal it met, for the gateway's error handling to answer.
 */
export class LoadRefusals {
  private refusal: unknown;

  watch(handler: A2ARequestHandler): A2ARequestHandler {
    const note = (error: unknown) => {
      if (this.refusal === undefined && isLoadRefusal(error)) this.refusal = error;
      return error;
    };
    return new Proxy(handler, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const answer: unknown = value.apply(target, args);
          if (answer instanceof Promise) return answer.catch((error: unknown) => Promise.reject(note(error)));
          if (answer !== null && typeof answer === "object" && Symbol.asyncIterator in answer) return noting(answer as AsyncIterable<unknown>, note);
          return answer;
        };
      },
    });
  }

  throwIfRefused(): void {
    if (this.refusal !== undefined) throw this.refusal;
  }
}

async function* noting<T>(events: AsyncIterable<T>, note: (error: unknown) => unknown): AsyncGenerator<T> {
  try {
    yield* events;
  } catch (error) {
    throw note(error);
  }
}
