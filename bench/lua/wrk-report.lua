-- wrk script of the bench. When BENCH_WRK_BODY names a file, every request is a POST of its
-- content (headers come from wrk's -H). With BENCH_WRK_UNIQUE=1, every request adds a query string
-- of its own, so no two requests share a target. At the end it prints one machine-readable line.
local body_file = os.getenv("BENCH_WRK_BODY")
if body_file ~= nil and body_file ~= "" then
  local file = assert(io.open(body_file, "rb"))
  wrk.method = "POST"
  wrk.body = file:read("*a")
  file:close()
end

if os.getenv("BENCH_WRK_UNIQUE") == "1" then
  local threads = 0
  setup = function(thread)
    threads = threads + 1
    thread:set("thread_id", threads)
  end
  local sent = 0
  request = function()
    sent = sent + 1
    return wrk.format(nil, wrk.path .. "?u=" .. tostring(thread_id) .. "-" .. tostring(sent))
  end
end

-- With BENCH_WRK_HOSTS naming a file of hostnames (one a line), requests take them in turn as their
-- Host header, so the load spreads over many sites.
local hosts_file = os.getenv("BENCH_WRK_HOSTS")
if hosts_file ~= nil and hosts_file ~= "" then
  local hosts = {}
  for line in io.lines(hosts_file) do
    if line ~= "" then hosts[#hosts + 1] = line end
  end
  local turn = 0
  request = function()
    turn = turn % #hosts + 1
    return wrk.format(nil, nil, { Host = hosts[turn] })
  end
end

-- With BENCH_WRK_ADDRESSES=<n>, every request comes from a client address of its own (an
-- X-Forwarded-For no request used before, in the /8 numbered n), as a flood of new clients
-- behind a trusted proxy. Answers 429 are counted apart (the limiter's overflow window refusing
-- new clients).
local addresses = os.getenv("BENCH_WRK_ADDRESSES")
local threads_seen = {}
if addresses ~= nil and addresses ~= "" then
  local count = 0
  setup = function(thread)
    count = count + 1
    thread:set("thread_id", count)
    threads_seen[count] = thread
  end
  local first = tonumber(addresses)
  local sent = 0
  limited = 0
  request = function()
    sent = sent + 1
    -- Threads take interleaved numbers, so no two requests share an address.
    local k = (sent - 1) * 16 + thread_id
    local address = string.format("%d.%d.%d.%d", first, math.floor(k / 65536) % 256, math.floor(k / 256) % 256, k % 256)
    return wrk.format(nil, nil, { ["X-Forwarded-For"] = address })
  end
  response = function(status)
    if status == 429 then limited = limited + 1 end
  end
end

done = function(summary, latency, requests)
  local limited_total = 0
  for _, thread in ipairs(threads_seen) do limited_total = limited_total + (thread:get("limited") or 0) end
  io.write(string.format('BENCH_WRK_LIMITED %d\n', limited_total))
  local e = summary.errors
  io.write(string.format(
    'BENCH_WRK {"requests":%.0f,"duration_us":%.0f,"bytes":%.0f,"p50_us":%.0f,"p99_us":%.0f,' ..
    '"max_us":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
    latency.max, e.connect, e.read, e.write, e.status, e.timeout))
end
