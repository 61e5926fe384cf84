# lambda >= K mu: no policy keeps up; refused at once with exit 2.
cmd: sim pool --servers 3 --arrival exp:3.5 --policy djsq
exit: 2
stderr: lambda = 3.5 >= K mu
