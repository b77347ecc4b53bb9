// One section of /profile/security: a card titled by its heading (the section's accessible name),
// with an optional badge beside the title and a `data-…` marker the journeys find it by.
import { type ReactNode, useId } from "react";

interface Props {
  title: string;
  /** The section's data attribute, without "data-" ("two-factor" gives data-two-factor). */
  marker: string;
  badge?: ReactNode;
  children: ReactNode;
}

export function SecurityCard({ title, marker, badge, children }: Props) {
  const headingId = useId();
  return (
    <section
      aria-labelledby={headingId}
      className="card border border-base-300 bg-base-100"
      {...{ [`data-${marker}`]: true }}
    >
      <div className="card-body gap-4 p-5">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id={headingId} className="text-lg font-semibold">
            {title}
          </h2>
          {badge}
        </div>
        {children}
      </div>
    </section>
  );
}
