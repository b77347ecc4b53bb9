// /org/* while the portal acts on the personal organisation: nothing to manage here, and where
// to go instead.
import { ORG_PAGE_TEXT } from "../../lib/org-text.ts";

export function PersonalNotice() {
  return (
    <div
      className="flex flex-col items-start gap-3 rounded-box border border-dashed border-base-300 p-6"
      data-org-personal
    >
      <p className="text-sm">{ORG_PAGE_TEXT.personalNotice}</p>
      <a href="/profile" className="btn btn-outline btn-sm">
        {ORG_PAGE_TEXT.personalLink}
      </a>
    </div>
  );
}
