/**
 * The origin of the page framing this one, when the web app allows it; `undefined` otherwise (not
 * framed, or framed by a page the web app does not list). The page talks to that origin only.
 */
export function allowedHostOrigin(allowedOrigins: readonly string[]): string | undefined {
  if (window.parent === window) return undefined;
  const ancestor = window.location.ancestorOrigins?.[0] ?? originOf(document.referrer);
  return ancestor !== undefined && allowedOrigins.includes(ancestor) ? ancestor : undefined;
}

function originOf(url: string): string | undefined {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}
