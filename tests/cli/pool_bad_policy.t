cmd: sim pool --servers 2 --arrival exp:1 --policy jsq-of
exit: 2
stderr: --policy: 'jsq-of' is not djsq, jsq, jsq-off, random or central
