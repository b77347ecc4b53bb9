// Tabs (the WAI-ARIA pattern): a tablist whose arrow keys, Home and End move between the tabs, and
// one panel shown at a time. Every panel stays mounted, only hidden, so what a panel loaded or
// typed survives a switch. The chosen tab is kept in the URL's fragment (#payments), so a reload or
// a shared link opens the same part of the page.
import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from "react";

export interface Tab {
  /** The fragment that opens this tab, and the stem of its ids. */
  id: string;
  label: string;
  panel: ReactNode;
}

/** The tab the URL's fragment names, or the first. */
const tabFromUrl = (tabs: readonly Tab[]) => {
  const hash = typeof location === "undefined" ? "" : location.hash.slice(1);
  return tabs.find((t) => t.id === hash)?.id ?? tabs[0]?.id ?? "";
};

const MOVES: Record<string, (i: number, n: number) => number> = {
  ArrowRight: (i, n) => (i + 1) % n,
  ArrowLeft: (i, n) => (i - 1 + n) % n,
  Home: () => 0,
  End: (_, n) => n - 1,
};

export function Tabs({ label, tabs }: { label: string; tabs: readonly Tab[] }) {
  const [selected, setSelected] = useState(() => tabFromUrl(tabs));
  const buttons = useRef<Array<HTMLButtonElement | null>>([]);

  // A link to another tab of this page (#audit) changes the fragment without a reload.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the tabs' ids are fixed for the page
  useEffect(() => {
    const follow = () => setSelected(tabFromUrl(tabs));
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, []);

  const select = (id: string) => {
    setSelected(id);
    history.replaceState(null, "", `#${id}`);
  };

  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const move = MOVES[event.key];
    if (!move) return;
    event.preventDefault();
    const next = move(index, tabs.length);
    const tab = tabs[next];
    if (!tab) return;
    select(tab.id);
    buttons.current[next]?.focus();
  };

  return (
    <div className="flex flex-col gap-4">
      <div role="tablist" aria-label={label} className="tabs tabs-box self-start" data-tabs>
        {tabs.map((tab, i) => (
          <button
            key={tab.id}
            ref={(el) => {
              buttons.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={tab.id === selected}
            aria-controls={`panel-${tab.id}`}
            tabIndex={tab.id === selected ? 0 : -1}
            // daisyUI dims an unchosen tab to half the text's colour (3.3:1): 80 % reads at AA.
            className="tab aria-[selected=false]:text-base-content/80"
            onClick={() => select(tab.id)}
            onKeyDown={(event) => onKeyDown(event, i)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={`panel-${tab.id}`}
          aria-labelledby={`tab-${tab.id}`}
          hidden={tab.id !== selected}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: the pattern's panel takes focus after its tab
          tabIndex={0}
          className="flex min-w-0 flex-col gap-3"
          data-panel={tab.id}
        >
          {/* For a screen reader's list of headings, which knows nothing of tabs. */}
          <h2 className="sr-only">{tab.label}</h2>
          {tab.panel}
        </div>
      ))}
    </div>
  );
}
