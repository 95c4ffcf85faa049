-- switchboard.lua: mail and chat from a switchboard host through Neovim's built-in JSON-RPC client
-- (vim.lsp.rpc, `Content-Length:` framing, which the host detects from the first bytes). Neovim 0.7+.
--
--   local sb = require('switchboard')
--   sb.start({'--backend', 'memory'})   -- optional: the first call starts the host
--   sb.inbox()                          -- <CR> on a conversation opens its thread
--   sb.chat('dm-u0-u1')                 -- a room's messages as they arrive; sb.chat_send(room, text)
--   sb.agenda('2026-01-05', '2026-01-11') -- days with events and weather (--plugins with the weather plugin)
--   sb.stop()
--
-- `M.command` names the program (default: `switchboard` on PATH, see scripts/install).
local M = {}

M.command = { 'switchboard', 'serve' }
-- How long a call waits for its answer before raising (a guard against a hang).
M.timeout_ms = 60000

local client, exit_code, sends = nil, nil, 0
local buffers = {}

--- The scratch buffer named `name`, made on first use.
local function buffer(name)
  local buf = buffers[name]
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, name)
    buffers[name] = buf
  end
  return buf
end

--- Appends `lines` to `buf` (replacing its content when `replace`).
local function put(buf, lines, replace)
  local first = replace and 0 or -1
  if not replace and vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == '' then
    first = 0
  end
  vim.api.nvim_buf_set_lines(buf, first, -1, false, lines)
end

local notifications = {}

--- Starts the host with `args` after `M.command`.
function M.start(args)
  local command = vim.list_extend(vim.deepcopy(M.command), args or {})
  exit_code = nil
  local dispatchers = {
    notification = function(method, params)
      if notifications[method] then notifications[method](params) end
    end,
    on_exit = function(code) exit_code = code end,
  }
  if vim.fn.has('nvim-0.10') == 1 then
    client = vim.lsp.rpc.start(command, dispatchers)
  else -- before 0.10: the program, then its arguments
    client = vim.lsp.rpc.start(command[1], vim.list_slice(command, 2), dispatchers)
  end
end

--- The result of `method` with `params` (a table), waiting for the answer; an error answer raises
--- a table {code, message, data}.
function M.call(method, params)
  if not client then M.start() end
  local done, err, result = false, nil, nil
  client.request(method, params or vim.empty_dict(), function(e, r) done, err, result = true, e, r end)
  if not vim.wait(M.timeout_ms, function() return done end, 10) then
    error('no answer to ' .. method)
  end
  if err then error(err, 0) end
  return result
end

--- Ends the session the LSP way (shutdown, then exit) and answers the host's exit code.
function M.stop()
  if not client then return exit_code end
  M.call('shutdown')
  client.notify('exit')
  vim.wait(M.timeout_ms, function() return exit_code ~= nil end, 10)
  client = nil
  return exit_code
end

--- Lists the inbox's `limit` (default 20) newest conversations in the buffer switchboard://inbox.
function M.inbox(limit)
  local page = M.call('inbox.list', { limit = limit or 20 })
  local lines, threads = {}, {}
  for _, item in ipairs(page.items) do
    table.insert(lines, string.format('%s  %-36s %s (%d)', item.latest.date, item.latest.from, item.subject,
      item.messageCount))
    table.insert(threads, item.threadId)
  end
  local buf = buffer('switchboard://inbox')
  put(buf, lines, true)
  vim.b[buf].switchboard_threads = threads
  vim.api.nvim_buf_set_keymap(buf, 'n', '<CR>', '', {
    callback = function() M.open_thread(threads[vim.api.nvim_win_get_cursor(0)[1]]) end,
  })
  return buf
end

--- Shows the thread `thread_id` in the buffer switchboard://thread.
function M.open_thread(thread_id)
  local thread = M.call('mail.thread', { threadId = thread_id })
  local lines = { thread.subject, '' }
  for _, message in ipairs(thread.messages) do
    vim.list_extend(lines, { 'From: ' .. message.from, 'Date: ' .. message.date, 'Subject: ' .. message.subject, '' })
    vim.list_extend(lines, vim.split(message.text, '\n', { plain = true }))
    table.insert(lines, '')
  end
  local buf = buffer('switchboard://thread')
  put(buf, lines, true)
  vim.api.nvim_set_current_buf(buf)
  return buf
end

--- Shows the days `from` to `to` (YYYY-MM-DD) in `time_zone`, each with its events and `place`'s
--- forecast, in switchboard://agenda. Calls weather.agenda, a tool of the weather plugin (start the
--- host with --plugins), which reads calendar.agenda back from the host.
function M.agenda(from, to, time_zone, place)
  local agenda = M.call('weather.agenda', { from = from, to = to, timeZone = time_zone, place = place })
  local lines = {}
  for _, day in ipairs(agenda.days) do
    local forecast = day.forecast
    if type(forecast) == 'table' then
      table.insert(lines, string.format('%s  %s, %d to %d °C', day.date, forecast.conditions,
        math.floor(forecast.lowC + 0.5), math.floor(forecast.highC + 0.5)))
    else -- beyond the forecast's horizon (16 days), or no data: the reason says which
      table.insert(lines, string.format('%s  no forecast (%s)', day.date, tostring(day.reason)))
    end
    for _, event in ipairs(day.events) do
      local at = event.showWithoutTime and 'all day' or event.continuing and 'cont.' or event.start:sub(12, 16)
      table.insert(lines, string.format('  %s  %s', at, event.title))
    end
  end
  local buf = buffer('switchboard://agenda')
  put(buf, lines, true)
  return buf
end

local function chat_buffer(room_id) return buffer('switchboard://chat/' .. room_id) end

local function message_line(message)
  return string.format('%s <%s> %s', message.sentAt, message.senderId, (message.text:gsub('\n', ' ')))
end

notifications['chat.message'] = function(params)
  put(chat_buffer(params.roomId), { message_line(params.message) })
end

notifications['chat.messageState'] = function(params)
  put(chat_buffer(params.roomId), { string.format('-- %s %s', params.clientMessageId, params.state) })
end

--- Shows `room_id`'s latest messages in switchboard://chat/ROOM, then each new one as the host
--- pushes it (chat.subscribe).
function M.chat(room_id)
  local history = M.call('chat.history', { roomId = room_id, limit = 10 })
  local lines = {}
  for i = #history.items, 1, -1 do table.insert(lines, message_line(history.items[i])) end
  local buf = chat_buffer(room_id)
  put(buf, lines, true)
  M.call('chat.subscribe', { roomId = room_id })
  return buf
end

--- Sends `text` to `room_id`; answers the message, `pending` until chat.messageState confirms it.
function M.chat_send(room_id, text)
  sends = sends + 1
  local client_id = string.format('nvim-%d-%d', vim.fn.getpid(), sends)
  return M.call('chat.send', { roomId = room_id, text = text, clientMessageId = client_id }).message
end

return M
