-- switchboard.lua against a real host, headless:
--   nvim --headless --clean -u NONE -c 'luafile examples/nvim/test.lua'      (switchboard on PATH)
-- Deterministic data: --backend memory and a fixed --now. Exits 0 when every test passes.
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
package.path = here .. '/?.lua;' .. package.path
local loaded, sb = pcall(require, 'switchboard')
if not loaded then
  io.stderr:write(tostring(sb) .. '\n')
  vim.cmd('cquit! 2')
end

local ARGS = { '--backend', 'memory', '--now', '2026-01-01T09:00:00Z' }
vim.env.WEATHER_OFFLINE = '1' -- the weather plugin's deterministic forecasts (source "synthetic"): no network

local function text(buf) return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') end

local function expect(condition, message)
  if not condition then error(message, 2) end
end

--- Runs the event loop until `predicate` holds (an error after a minute: a hang, not a timing).
local function wait_for(predicate, what)
  expect(vim.wait(60000, predicate, 10), 'nothing came from the host: ' .. what)
end

local tests = {}

tests['the inbox lists conversations'] = function()
  local lines = vim.api.nvim_buf_get_lines(sb.inbox(5), 0, -1, false)
  expect(#lines == 5, 'five lines, got ' .. #lines)
  expect(lines[1]:match('^2026%-01%-01T01:33:56Z  joan%.clarke@bletchley%.example +Hotel options in São Paulo %(2%)$'),
    'the newest conversation first, got ' .. lines[1])
end

tests['a thread opens from the inbox'] = function()
  local inbox = sb.inbox(5)
  vim.api.nvim_set_current_buf(inbox)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  local thread = text(vim.api.nvim_get_current_buf())
  expect(vim.startswith(thread, 'Hotel options in São Paulo\n'), 'the thread buffer, got ' .. thread)
  expect(thread:find('\nSubject: Re: Hotel options in São Paulo\n', 1, true), 'the reply, got ' .. thread)
  expect(thread:find('\nFrom: demo@switchboard.example\n', 1, true), 'our own message, got ' .. thread)
end

tests['chat shows pushed messages as they arrive'] = function()
  local buf = sb.chat('dm-u0-u1')
  expect(text(buf):find('<u1>', 1, true), 'the history, got ' .. text(buf))
  expect(sb.chat_send('dm-u0-u1', 'Lunch at noon?').state == 'pending', 'chat.send answers pending')
  -- The push of our own message, the confirmation, and the simulated peer's reply after ours.
  wait_for(function()
    local t = text(buf)
    local mine = t:find('<u0> Lunch at noon?', 1, true)
    return mine and t:find('\n%-%- nvim%-%d+%-%d+ sent') and t:find('<u1> ', mine, true)
  end, 'chat.message and chat.messageState')
end

tests['an error answer raises its code'] = function()
  local ok, err = pcall(sb.call, 'inbox.list', { limit = 'ten' })
  expect(not ok and type(err) == 'table' and err.code == -32602, 'a -32602 error, got ' .. vim.inspect(err))
end

tests['the agenda shows each day with its weather'] = function()
  sb.stop()
  sb.start(vim.list_extend(vim.deepcopy(ARGS), { '--plugins', here .. '/../../Plugins' }))
  local lines = vim.api.nvim_buf_get_lines(sb.agenda('2026-01-05', '2026-01-11', 'Europe/Berlin', 'Berlin'), 0, -1, false)
  local days, events = {}, 0
  for _, line in ipairs(lines) do
    if line:match('^  ') then
      expect(line:match('^  all day  .') or line:match('^  cont%.  .') or line:match('^  %d%d:%d%d  .'), 'an event line, got ' .. line)
      events = events + 1
    else
      expect(line:match('^%d%d%d%d%-%d%d%-%d%d  %a+, %-?%d+ to %-?%d+ °C$'), 'a day line, got ' .. line)
      table.insert(days, line:sub(1, 10))
    end
  end
  expect(#days == 7 and days[1] == '2026-01-05' and days[7] == '2026-01-11', 'seven days, got ' .. vim.inspect(days))
  expect(events > 0, 'some events')
end

local failed, names = 0, vim.tbl_keys(tests)
table.sort(names)
for _, name in ipairs(names) do
  sb.start(ARGS)
  local ok, err = pcall(tests[name])
  local code = sb.stop()
  if ok and code ~= 0 then ok, err = false, 'the host exited with ' .. tostring(code) end
  io.stdout:write(string.format('%s  %s%s\n', ok and 'passed' or 'FAILED', name, ok and '' or (': ' .. tostring(err))))
  if not ok then failed = failed + 1 end
end
io.stdout:write(string.format('%d of %d neovim tests passed\n', #names - failed, #names))
vim.cmd(failed == 0 and 'qall!' or 'cquit! 1')
