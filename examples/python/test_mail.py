"""The inbox and a thread: deterministic under --backend memory and --now."""
from conftest import MEMORY


def test_inbox_lists_conversations_newest_first(start):
    host = start(*MEMORY)
    page = host.call("inbox.list", {"limit": 3})
    assert len(page["items"]) == 3
    assert page["hasMore"] is True and page["nextCursor"]
    dates = [item["latest"]["date"] for item in page["items"]]
    assert dates == sorted(dates, reverse=True)


def test_thread_of_the_newest_conversation(start):
    host = start(*MEMORY)
    newest = host.call("inbox.list", {"limit": 1})["items"][0]
    thread = host.call("mail.thread", {"threadId": newest["threadId"]})
    assert thread["messages"], thread
    assert all(message["threadId"] == newest["threadId"] for message in thread["messages"])


def test_the_same_flags_give_the_same_answers(start):
    first, second = start(*MEMORY), start(*MEMORY)
    assert first.call("inbox.list", {"limit": 5}) == second.call("inbox.list", {"limit": 5})


def test_the_next_page_follows_the_first(start):
    host = start(*MEMORY)
    first = host.call("inbox.list", {"limit": 2})
    second = host.call("inbox.list", {"limit": 2, "cursor": first["nextCursor"]})
    seen = [item["threadId"] for item in first["items"] + second["items"]]
    assert len(set(seen)) == 4


def test_a_send_is_pushed_to_a_mail_subscription(start):
    host = start(*MEMORY)
    subscription = host.call("mail.subscribe")
    host.call("mail.send", {"to": "ada@example.com", "subject": "Lunch?", "text": "Thursday at noon?"})
    changed = host.next_notification("mail.changed")
    assert changed["subscriptionId"] == subscription["subscriptionId"]
    changes = host.call("mail.changes", {"sinceState": subscription["state"]})
    assert changes["created"] and changes["newState"] == changed["state"]
