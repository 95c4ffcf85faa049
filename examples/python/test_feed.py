"""A cursor walk over a whole feed: every item once, in order."""
from conftest import MEMORY


def test_cursor_walk_visits_every_item_once(start):
    host = start(*MEMORY, "--feed-items", "1234")
    ids, cursor = [], None
    while True:
        page = host.call("feed.list", {"limit": 100, **({"cursor": cursor} if cursor else {})})
        ids += [item["id"] for item in page["items"]]
        if not page["hasMore"]:
            assert page["nextCursor"] is None
            break
        cursor = page["nextCursor"]
    assert len(ids) == len(set(ids)) == page["total"] == 1234
    assert ids == sorted(ids) or ids == sorted(ids, reverse=True)


def test_progress_is_reported_for_a_slow_call(start):
    host = start(*MEMORY)
    assert host.call("host.sleep", {"ms": 30, "steps": 3, "_meta": {"progressToken": "walk"}}) is not None
    progress = host.next_notification("$/progress")
    assert progress["token"] == "walk"
