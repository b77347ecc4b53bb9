// The words of /profile/usage, kept out of UI_TEXT (which every page's islands load) so that only
// this page carries them.
import { UI_TEXT } from "./ui-text.ts";

export const USAGE_TEXT = {
  ...UI_TEXT.usage,
  title: "Usage",
  /** Static, so the same for everyone: a billing member's page shows the organisation's keys, not theirs. */
  intro: "The credits that generations spent, by day, feature and API key.",
  presets: { days7: "7 days", days30: "30 days", days90: "90 days", thisMonth: "This month" },
  rangeLabel: "Period",
  chartTitle: "Credits used per day",
  chartLabel: (from: string, to: string, by = "feature") =>
    `Credits used per day from ${from} to ${to}, stacked by ${by}`,
  /** A team organisation's choice of what the chart stacks. */
  stackLabel: "Stack by",
  stacks: { feature: "Feature", member: "Member" },
  byMember: "By member",
  member: "Member",
  tableCaption: "Credits used per day and feature",
  tableToggle: "Show the numbers as a table",
  byFeature: "By feature",
  byKey: "By API key",
  day: "Day",
  feature: "Feature",
  key: "API key",
  /** What a charge's quantity counts: one call may pay for several generations (API-ACCESS.md). */
  uses: "Generations",
  usesTotal: (count: number, shown: string) => `${shown} ${count === 1 ? "generation" : "generations"}`,
  credits: "Credits",
  total: "Total",
  noKey: "Without a key",
  manual: "Manual charges",
  revokedKey: "revoked",
  download: "Download CSV",
  downloading: "Preparing…",
  loading: "Loading your usage…",
  downloadFailed: "The CSV could not be downloaded. Please try again.",
  loadFailed: "Your usage could not be loaded.",
  retry: "Try again",
  emptyTitle: "No usage in this period",
  /** For a team organisation: the usage of every member's keys, which a billing member sees too. */
  emptyBodyTeam:
    "When programs call the generation API with the organisation's API keys, each generation and " +
    "the credits it cost show up here, by day, feature, key and member.",
  emptyBody:
    "When your programs call the generation API with one of your API keys, each generation and the " +
    "credits it cost show up here, by day, feature and key.",
  zoneNote: "Days are Berlin days (Europe/Berlin).",
} as const;
