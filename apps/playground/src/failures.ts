/** An SDK failure in words: the gateway's `detail` when it sent one. */
export function describe(failure: unknown): string {
  const { status, text, message } = failure as { status?: number; text?: string; message?: string };
  try {
    const { detail } = JSON.parse(text ?? "") as { detail?: string };
    if (detail) return `${status}: ${detail}`;
  } catch {
    // not JSON: fall back to the message
  }
  return message ?? String(failure);
}
