cmd: sim maxusers --reference 325@0,300@x
exit: 2
stderr: --reference
stderr: column
