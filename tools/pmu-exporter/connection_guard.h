// pmu-exporter -- the limits a scrape endpoint needs that libevent 2.1's evhttp does not keep by
// itself, added through its public hooks (evhttp_set_bevcb, evconnlistener_set_error_cb):
//  - a request that is not complete `request_timeout_ms` after its first byte is closed: a client
//    that trickles a request a byte at a time (slowloris) holds a connection for a bounded time.
//    Silence, between requests or while a response waits to be taken, is evhttp's own timeout
//    (evhttp_set_timeout_tv: `idle_timeout_ms`);
//  - at most `max_connections` are open: at the cap, the connection idle longest (no request begun)
//    makes room for a new one; when none is idle, the listener pauses and new connections wait in
//    the listen backlog until one closes;
//  - when accept(2) fails for want of descriptors or memory, the listener rests, from 10 ms
//    doubling to 1 s, instead of being polled again at once (libevent would spin on it);
//  - each of these is said on stderr at most once per 10 s per kind, with how many times since.
// Each connection's bufferevent is made here (the socket bufferevent evhttp would make itself); a
// callback on its input buffer sees where each request's header ends. The guard holds a reference
// to it, and learns that evhttp is done with it when evhttp has cleared its callbacks
// (bufferevent_free does): a sweep, before every new connection and every 200 ms, lets those go.
// A connection is closed by shutdown(2) of its socket: evhttp reads the end of the stream and frees
// it as it frees any connection the client closed. (A bufferevent filter would see the bytes too,
// but libevent 2.1's filter reports a reply written once it reaches the socket's buffer, not the
// socket, so evhttp closed "Connection: close" replies before they were sent.) Everything runs on
// the server's event-loop thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "config.h"  // HttpLimits

struct event;
struct event_base;
struct evhttp;
struct evhttp_bound_socket;
struct evconnlistener;
struct bufferevent;

namespace pmukit::exporter {

// What the guard has seen, for /healthz.
struct HttpStats {
  std::uint64_t open = 0;             // connections open now
  std::uint64_t accepted = 0;         // since the start
  std::uint64_t timed_out = 0;        // requests closed at their deadline
  std::uint64_t evicted = 0;          // idle connections closed at the cap to make room
  std::uint64_t accept_failures = 0;  // accept(2) errors that made the listener rest
};

// One line per kind of trouble at most every 10 s, with how many times it happened since.
class RateLimitedLog {
 public:
  void say(const std::string& line);

 private:
  std::chrono::steady_clock::time_point last_{};
  bool said_ = false;
  std::uint64_t unsaid_ = 0;
};

class ConnectionGuard {
 public:
  // Sets `http`'s idle timeout and connection hook; `base` is the loop `http` runs on.
  ConnectionGuard(event_base* base, evhttp* http, HttpLimits limits);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // Watches the listening socket evhttp accepts on: accept back-off and the pause at the cap.
  void watch(evhttp_bound_socket* bound);
  const HttpStats& stats() const { return stats_; }
  // Before evhttp_free: lets the listener, the timers and every connection go (evhttp_free then
  // finishes them).
  void detach();
  // Lets go of the connections evhttp is done with (and so counts the open ones right).
  void sweep();

  struct Connection;  // one accepted connection (connection_guard.cpp)

 private:
  static bufferevent* on_accept(event_base* base, void* guard);
  static void on_accept_error(evconnlistener* listener, void* http);
  static void on_rest_over(int fd, short what, void* guard);
  static void on_sweep(int fd, short what, void* guard);
  void admit(Connection& c);
  void make_room(const Connection& newest);
  void release(Connection& c);
  void begin_request(Connection& c);
  void end_request(Connection& c);
  void request_timed_out(Connection& c);
  void close(Connection& c);
  void rest_after(int err);
  void update_listener();

  evhttp* http_;
  HttpLimits limits_;
  HttpStats stats_;
  std::list<Connection*> connections_;  // in the order they were accepted
  evconnlistener* listener_ = nullptr;
  event* rest_ = nullptr;   // the timer that ends the listener's rest
  event* sweep_ = nullptr;  // every 200 ms: sweep()
  bool resting_ = false;    // after an accept(2) failure
  bool accepting_ = true;   // the listener is enabled
  bool detached_ = false;   // the loop is being freed
  unsigned rest_ms_ = 10;   // the next rest: 10 ms doubling to 1 s, back to 10 after an accept
  RateLimitedLog timeouts_log_, evictions_log_, accept_log_;
};

}  // namespace pmukit::exporter
