% SPDX-License-Identifier: GPL-3.0-or-later
% octave_cases.m: the exact values of tests/network/net_check.py's product-
% form networks as Octave's queueing package computes them (qnosvisits and
% qnos for the open networks, qncsmva for the central server, qncsmva inside
% the mixed decomposition), a third road to the numbers beside qctl's own
% solver and net_check.py's. Prints one line per value:
%   case <TAB> stations|end_to_end <TAB> station or class <TAB> class or - <TAB> metric <TAB> value
% read by tests/network/octave_check.py. Run: octave-cli -q octave_cases.m
pkg load queueing
warning("off", "all");
1;

function out_st(cs, names, cl, U, R, Q, X)
  for k = 1:numel(names)
    printf("%s\tstations\t%s\t%s\tthroughput\t%.17g\n", cs, names{k}, cl, X(k));
    printf("%s\tstations\t%s\t%s\tresponse_time\t%.17g\n", cs, names{k}, cl, R(k));
    printf("%s\tstations\t%s\t%s\tnumber\t%.17g\n", cs, names{k}, cl, Q(k));
    if !isempty(U)
      printf("%s\tstations\t%s\t%s\tutilization\t%.17g\n", cs, names{k}, cl, U(k));
    end
  end
end

function out_e2e(cs, cl, X, R, N)
  printf("%s\tend_to_end\t%s\t-\tthroughput\t%.17g\n", cs, cl, X);
  printf("%s\tend_to_end\t%s\t-\tresponse_time\t%.17g\n", cs, cl, R);
  printf("%s\tend_to_end\t%s\t-\tnumber\t%.17g\n", cs, cl, N);
end

function open_case(cs, cl, names, P, lam, S, m)
  % one open class: visits from the routing, then BCMP per station (a PS
  % station of c servers has the M/M/c station's number)
  V = qnosvisits(P, lam);
  L = sum(lam);
  [U, R, Q, X] = qnos(L, S, V, m);
  out_st(cs, names, cl, U, R, Q, X);
  out_e2e(cs, cl, L, sum(R .* V), sum(Q));
end

% a tandem: M/M/1, M/M/1, M/M/1-PS
open_case("tandem", "x", {"a", "b", "c"}, [0 1 0; 0 0 1; 0 0 0], [1 0 0], [0.5 1/1.5 1/3], [1 1 1]);
% feedback: an M/M/2, then back with 0.3
open_case("feedback", "x", {"a", "b"}, [0 1; 0.3 0], [1 0], [1 0.4], [2 1]);
% three tiers routing back to the front: web (PS, 2 servers), app (4), db
open_case("three-tier", "req", {"web", "app", "db"}, [0 0.5 0; 0.4 0 0.6; 0.5 0.5 0], [4 0 0], ...
          [0.1 0.5 0.125], [2 4 1]);

% the central server (cpu PS, two disks), think time 5, populations 1, 10, 50
for N = [1 10 50]
  cs = sprintf("central-server N=%d", N);
  Vc = [5 2.5 1.5];
  [U, R, Q, X] = qncsmva(N, [0.02 0.04 0.08], Vc, [1 1 1], 5);
  out_st(cs, {"cpu", "disk1", "disk2"}, "job", U, R, Q, X);
  Xs = X(1) / Vc(1);
  out_e2e(cs, "job", Xs, sum(Q) / Xs, sum(Q));
end

% two classes, mixed: web (open, 6/s: cpu, then disk or net) and batch (8
% users, think 1: cpu 4 visits, disk 3) at a PS cpu, an FCFS disk and a
% delay. qnmix of queueing 1.2.7 refuses a delay centre here (it checks m
% against lambda's length, then multiplies vectors of unequal sizes), so
% its own decomposition (Lazowska et al. 1984, 7.4.3) is written out: the
% open class's utilizations stretch the closed chain's service times,
% the closed chain is solved by qncsmva with its think time, and the open
% class's response at a queueing centre is S (1 + Qclosed) / (1 - Uopen).
cs = "mixed two-class";
Sw = [0.05 1/30 0.2]; Vw = [1 0.5 0.5];
Sb = [0.1 1/30]; Vb = [4 3];
Uo = 6 * Sw(1:2) .* Vw(1:2);
[Ub, Rb, Qb, Xb] = qncsmva(8, Sb ./ (1 - Uo), Vb, [1 1], 1);
Rw = [Sw(1:2) .* (1 + Qb) ./ (1 - Uo), Sw(3)];
Qw = 6 * Vw .* Rw;
out_st(cs, {"cpu", "disk", "net"}, "web", [], Rw, Qw, 6 * Vw);
out_st(cs, {"cpu", "disk"}, "batch", [], Rb, Qb, Xb);
out_e2e(cs, "web", 6, sum(Rw .* Vw), sum(Qw));
Xbs = Xb(1) / Vb(1);
out_e2e(cs, "batch", Xbs, sum(Qb) / Xbs, sum(Qb));

% the three-tier service of docs/networks.md (examples/network/three_tier.json,
% the open loop: no controller) at 25, 50, 100 and 150 users who think 5 s:
% web (PS, 2 cores, 5 ms), app (4 workers, 40 ms), db (10 ms); web -> app
% 0.7 (else out), app -> db or back to web, db -> app. Multi-server centres:
% qncsmva's load-dependent MVA.
Vt = qnosvisits([0 0.7 0; 0.5 0 0.5; 0 1 0], [1 0 0]);
for N = [25 50 100 150]
  cs = sprintf("three-tier closed N=%d", N);
  [U, R, Q, X] = qncsmva(N, [0.005 0.04 0.01], Vt, [2 4 1], 5);
  out_st(cs, {"web", "app", "db"}, "users", U, R, Q, X);
  Xs = X(1) / Vt(1);
  out_e2e(cs, "users", Xs, sum(Q) / Xs, sum(Q));
end
