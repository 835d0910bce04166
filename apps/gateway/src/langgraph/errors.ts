import type { ErrorCode } from "@axiom-lattice/protocols";
import type { FastifyError, FastifyInstance } from "fastify";
import { z } from "zod";
import { ERROR_STATUS, type HttpError, adviseRetry, errorAnswerOf } from "../http/errors";
import { API_CODES, BODY_CODES, INPUT_CODES } from "../openapi/errorResponses";

/** Input the API cannot use answers 422, as LangGraph Platform does; every other code its own status. */
const UNPROCESSABLE: readonly ErrorCode[] = ["INVALID_REQUEST", "INVALID_JSON", "INVALID_STORE_ARGUMENT", "INVALID_RUN_INPUT", "INVALID_CRON"];

/** The status a LangGraph API route answers `code` with. */
export const langgraphStatus = (code: ErrorCode): number => (UNPROCESSABLE.includes(code) ? 422 : ERROR_STATUS[code]);

/**
 * Errors of the routes in `app`'s scope answer `{ detail, code }`, as LangGraph Platform answers
 * (`detail`) with the gateway's stable code beside it; the statuses are the platform's.
 */
export function installLanggraphErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    const { code, message } = errorAnswerOf(error, request);
    return adviseRetry(reply, code).status(langgraphStatus(code)).send({ detail: message, code });
  });
}

const detailBody = (codes: readonly [ErrorCode, ...ErrorCode[]]) =>
  z
    .object({
      detail: z.string().describe("What went wrong, in English (LangGraph Platform's error field)"),
      code: z.enum(codes).describe("The gateway's stable error code"),
    })
    .describe(`Refused: ${codes.join(", ")}`);

/** The error answers of a LangGraph API route: those of every protected route, and `codes`, one per status. */
export function langgraphErrors(...codes: readonly ErrorCode[]): Record<number, ReturnType<typeof detailBody>> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...API_CODES, ...codes])) {
    const status = langgraphStatus(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].map(([status, [first, ...rest]]) => [status, detailBody([first, ...rest])]));
}

/** What a LangGraph route with a path or query may answer about its input. */
export const inputErrors = (...codes: readonly ErrorCode[]) => langgraphErrors(...INPUT_CODES, ...codes);
/** What a LangGraph route taking a JSON body may answer about it. */
export const bodyErrors = (...codes: readonly ErrorCode[]) => langgraphErrors(...BODY_CODES, ...codes);
