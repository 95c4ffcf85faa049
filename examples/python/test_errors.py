"""Error paths: protocol errors, and the chat service's failures under --simulate."""
from conftest import MEMORY

ROOM = "dm-u0-u1"
SEND = {"roomId": ROOM, "text": "hello", "clientMessageId": "py-err"}


def test_an_unknown_method(start):
    error = start(*MEMORY).error("no.such")
    assert error.code == -32601


def test_invalid_params_name_the_member(start):
    error = start(*MEMORY).error("inbox.list", {"limit": "ten"})
    assert error.code == -32602 and error.data["field"] == "limit"


def test_a_thread_that_does_not_exist(start):
    error = start(*MEMORY).error("mail.thread", {"threadId": "no-such-thread"})
    assert error.code in (-32004, -32602)


def test_rate_limit(start):
    error = start(*MEMORY, "--simulate", "rate-limit").error("chat.send", SEND)
    assert error.code == -32029
    assert error.data == {"resetAt": "2026-01-01T09:01:00Z", "retryAfterMs": 60000}


def test_server_error_names_a_debug_id_found_in_the_log(start):
    host = start(*MEMORY, "--simulate", "server-error")
    error = host.error("chat.rooms")
    assert error.code == -32060
    host.close()
    assert error.data["debugId"] in host.stderr


def test_slow_send_stays_pending_until_the_next_chat_request(start):
    host = start(*MEMORY, "--simulate", "slow")
    assert host.call("chat.send", SEND)["message"]["state"] == "pending"
    host.call("chat.rooms")
    assert host.next_notification("chat.messageState")["state"] == "sent"


def test_an_unknown_locale_names_the_member(start):
    error = start(*MEMORY).error("catalog.sectors", {"locale": "xx-no-such"})
    assert error.code == -32602 and error.data["field"] == "locale"


def test_a_cursor_from_another_list_is_refused(start):
    host = start(*MEMORY)
    cursor = host.call("feed.list", {"limit": 1})["nextCursor"]
    error = host.error("inbox.list", {"cursor": cursor})
    assert error.code == -32602 and error.data["field"] == "cursor"
