// The spec's invalid-token state of /reset-password and /verify-email: the message and a link to
// ask for a new link.
import { ERROR_TEXT } from "../../lib/ui-text.ts";

export function InvalidToken({ linkHref, linkText }: { linkHref: string; linkText: string }) {
  return (
    <div className="flex flex-col gap-4" data-token-invalid>
      <p role="alert" className="alert alert-error">
        {ERROR_TEXT.tokenInvalid}
      </p>
      <a href={linkHref} className="btn btn-primary">
        {linkText}
      </a>
    </div>
  );
}
