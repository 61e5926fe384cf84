# qctl plot sysid_fit: run `gnuplot sysid_fit.gp` in this folder to redraw
# sysid_fit.svg, sysid_fit.png and (with the pdfcairo terminal) sysid_fit.pdf
set terminal svg size 800,500 dynamic enhanced font 'sans,12'
set output 'sysid_fit.svg'
set grid
set datafile separator ','
set datafile missing ''
set key outside bottom center horizontal
set title 'plant: measured vs ARX prediction'
set xlabel 'time (s)'
set ylabel 'y'
set arrow from 45.91837183, graph 0 to 45.91837183, graph 1 nohead dt 2 lc rgb 'gray40'
set label 'validation' at 45.91837183, graph 0.95 offset 1,0
plot 'sysid_fit.csv' using 1:3 every ::1 with lines lw 1.5 lc rgb '#1f77b4' title 'measured', '' using 1:4 every ::1 with lines lw 1 lc rgb '#ff7f0e' title 'one-step prediction', '' using 1:5 every ::1 with lines lw 1.5 dt 3 lc rgb '#2ca02c' title 'simulated from u'
set terminal pngcairo size 800,500 enhanced font 'sans,10'
set output 'sysid_fit.png'
replot
unset output
if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16cm,10cm enhanced font 'sans,9'
    set output 'sysid_fit.pdf'
    replot
    unset output
}
