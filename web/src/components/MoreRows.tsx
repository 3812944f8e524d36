/** Under a paged list: how many are shown, and a button for the next page while there is one. */
export function MoreRows({
  shown,
  remaining,
  more,
}: {
  shown: number;
  remaining?: number;
  more?: () => void;
}) {
  if (!more && remaining === undefined) return null;
  return (
    <div className="more-rows">
      <span className="muted">
        {shown} shown{remaining === undefined ? "" : `, ${remaining} more`}
      </span>
      <button type="button" onClick={more} disabled={!more}>
        More
      </button>
    </div>
  );
}
