// The {param} of the parameterised routes (/reset-password/{token}, /verify-email/{token},
// /payment/{status}); the server answers all of them with one prebuilt page.

/** The decoded segment after `prefix` in `pathname`, e.g. ("/payment/success", "/payment/") -> "success". */
export function routeParam(pathname: string, prefix: string): string {
  if (!pathname.startsWith(prefix)) return "";
  const segment = pathname.slice(prefix.length).split("/")[0] ?? "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
