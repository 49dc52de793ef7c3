/** The mark of a TurboSched jitter task in text: a dashed tag, as the machine outlines its cells. */
export function JitterTag() {
  return (
    <span className="jitter-tag" data-testid="jitter-tag" title="TurboSched's jitter class: short, periodic work that policy.turbo_pack packs onto busy cores, so idle cores can stay in deep idle">
      jitter (TurboSched)
    </span>
  );
}
