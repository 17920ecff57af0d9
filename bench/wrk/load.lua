-- One wrk script for every measurement of bench/http.py.
--
-- Parameters come from the environment (set by bench/http.py):
--   BENCH_METHOD  GET or POST
--   BENCH_PATHS   paths separated by "|"; wrk thread i uses path i (cycling), so with
--                 -t N -c N every connection has its own path (its own table). One entry
--                 may be several paths separated by ",", which the thread takes in turn
--                 request by request (a mix); a path may be followed by a space and a
--                 bearer token of its own (another owner's key)
--   BENCH_BODY    request body (POST)
--   BENCH_HEADERS extra headers, "Name: value" separated by "|"
--   BENCH_ETAGS   optional, separated by "|", paired with BENCH_PATHS: sent as If-None-Match
--   BENCH_OUT     file the summary is written to (one JSON object)

local function split(s, sep)
  local out = {}
  if s == nil or s == "" then return out end
  for part in string.gmatch(s, "([^" .. sep .. "]+)") do table.insert(out, part) end
  return out
end

local threads = {}
local next_id = 1

function setup(thread)
  thread:set("thread_id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  local method = os.getenv("BENCH_METHOD") or "GET"
  local paths = split(os.getenv("BENCH_PATHS") or "/", "|")
  local etags = split(os.getenv("BENCH_ETAGS") or "", "|")
  local body = os.getenv("BENCH_BODY")
  if body == "" then body = nil end
  local i = ((thread_id - 1) % #paths) + 1
  local headers = {}
  for _, h in ipairs(split(os.getenv("BENCH_HEADERS") or "", "|")) do
    local name, value = string.match(h, "^([^:]+):%s*(.*)$")
    headers[name] = value
  end
  if body ~= nil then headers["Content-Type"] = "application/json" end
  if etags[i] ~= nil then headers["If-None-Match"] = etags[i] end
  statuses = {}
  reqs = {}
  for _, entry in ipairs(split(paths[i], ",")) do
    local path, token = string.match(entry, "^(%S+)%s+(%S+)$")
    local own = headers
    if path == nil then
      path = entry
    else
      own = {}
      for k, v in pairs(headers) do own[k] = v end
      own["Authorization"] = "Bearer " .. token
    end
    table.insert(reqs, wrk.format(method, path, own, body))
  end
  turn = 0
end

function request()
  turn = (turn % #reqs) + 1
  return reqs[turn]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    local s = thread:get("statuses")
    for code, n in pairs(s) do counts[code] = (counts[code] or 0) + n end
  end
  local parts = {}
  for code, n in pairs(counts) do table.insert(parts, string.format('"%d": %d', code, n)) end
  local e = summary.errors
  local out = string.format(
    '{"requests": %d, "duration_us": %d, "bytes": %d, ' ..
    '"latency_us": {"p50": %d, "p90": %d, "p99": %d, "max": %d, "mean": %.1f}, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, ' ..
    '"statuses": {%s}}',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    e.connect, e.read, e.write, e.status, e.timeout,
    table.concat(parts, ", "))
  local path = os.getenv("BENCH_OUT")
  if path ~= nil and path ~= "" then
    local f = io.open(path, "w")
    f:write(out)
    f:close()
  else
    io.write(out .. "\n")
  end
end
