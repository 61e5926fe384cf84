# qctl plot root_locus: run `gnuplot root_locus.gp` in this folder to redraw
# root_locus.svg, root_locus.png and (with the pdfcairo terminal) root_locus.pdf
set terminal svg size 800,500 dynamic enhanced font 'sans,12'
set output 'root_locus.svg'
set grid
set title 'root locus: loop on the plant output (K_P = 0)'
set size ratio -1
set xlabel 'Re z'
set ylabel 'Im z'
set key outside right top
set logscale cb
set cblabel '|K_I|'
set palette rgbformulae 33,13,10 maxcolors 8
set xrange [-1.6:1.6]
set yrange [-1.3:1.3]
set parametric
set trange [0:2*pi]
plot cos(t), sin(t) with lines lc rgb 'gray50' title 'unit circle', 'root_locus.dat' index 0 using 1:2:3 with points pt 7 ps 0.35 palette title 'closed-loop poles', 'root_locus.dat' index 1 using 1:2 with points pt 2 ps 2 lw 2 lc rgb 'black' title 'open loop', 'root_locus.dat' index 2 using 1:2 with points pt 6 ps 1.8 lw 1.5 lc rgb 'red' title 'table gains'
set terminal pngcairo size 800,500 enhanced font 'sans,10'
set output 'root_locus.png'
replot
unset output
if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16cm,10cm enhanced font 'sans,9'
    set output 'root_locus.pdf'
    replot
    unset output
}
