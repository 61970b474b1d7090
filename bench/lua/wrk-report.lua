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

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_WRK {"requests":%.0f,"duration_us":%.0f,"bytes":%.0f,"p50_us":%.0f,"p99_us":%.0f,' ..
    '"max_us":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
    latency.max, e.connect, e.read, e.write, e.status, e.timeout))
end
